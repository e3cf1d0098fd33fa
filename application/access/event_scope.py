"""Who may use the EPCIS API, and which events they see: permissions on `epcis_event`."""

import dataclasses
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Protocol

from application.service.errors import Forbidden
from domain.access.policies import Accountability
from domain.collections.filters import Filter, parse_filter
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.variables import VariableContext, resolve_variables
from domain.epcis.event_query import EventQuery
from domain.epcis.event_rules import (
    EventRuleError,
    allowed_queries,
    rule_prefixes,
    unbound_curies,
)
from domain.epcis.query_curies import PrefixBindings

#: The collection that permission rows name for the EPCIS API.
EPCIS_EVENTS = "epcis_event"

#: The events a caller may read: None for all of them, else those matching any query.
EventScope = tuple[EventQuery, ...] | None


class AuthenticationRequired(Forbidden):
    """The public may not do this: a caller who sends a token might."""


class PrefixResolver(Protocol):
    """Reads CURIE prefixes as queries do: by what captured documents bound them to."""

    async def bindings(
        self, prefixes: Collection[str], accounts: Sequence[str] | None
    ) -> PrefixBindings:
        """What the documents the `accounts` captured (None: any account) bound each of
        `prefixes` to."""
        ...

    def bound_per_account(self, prefixes: Collection[str]) -> list[PrefixBindings]:
        """What the documents of each account bound each of `prefixes` to. Blocks."""
        ...


class EventScopes:
    """The scopes of callers whose rules name CURIEs: each is read by the bindings of the
    documents the caller's own accounts captured, as the caller's queries are."""

    def __init__(self, prefixes: PrefixResolver) -> None:
        self._prefixes = prefixes

    async def request_scope(self, caller: Accountability, action: str) -> EventScope:
        """`request_scope`, the caller's rule read by its accounts' bindings."""
        return request_scope(caller, action, await self._bindings(caller, action))

    async def event_scope(self, caller: Accountability, action: str) -> EventScope:
        """`event_scope`, the caller's rule read by its accounts' bindings."""
        return event_scope(caller, action, await self._bindings(caller, action))

    def check_rule(self, rule: object) -> None:
        """Refuse (EventRuleError) a rule on `epcis_event` that queries cannot answer, or
        that names a CURIE no captured document binds, or that one account's documents
        bind two ways: what it means must be known when it is written. (A rule may serve
        callers of several accounts; each reads it by its own account's bindings.)
        Blocks on the database."""
        parsed = _resolved(rule, None)
        per_account = self._prefixes.bound_per_account(rule_prefixes(parsed))
        bound = PrefixBindings(
            {p: ns for b in per_account for p, ns in b.namespaces.items()},
            frozenset(p for b in per_account for p in b.ambiguous),
        )
        unbound = unbound_curies(parsed, bound)
        if unbound:
            raise EventRuleError(
                f"{unbound[0]}: no captured document binds its prefix; write the full IRI"
            )
        # Only checked, so it is read as written: an ambiguous prefix is what it refuses.
        rule_scope(rule, bindings=PrefixBindings(ambiguous=bound.ambiguous))

    async def _bindings(self, caller: Accountability, action: str) -> PrefixBindings | None:
        rule = _rule(caller, action)
        if rule is None:
            return None
        try:
            used = rule_prefixes(_resolved(rule, caller))
        except (EventRuleError, QueryError, FieldForbidden):
            return None  # `event_scope` refuses the rule, saying why
        if not used:
            return None
        return await self._prefixes.bindings(used, caller.accounts)


def _rule(caller: Accountability, action: str) -> object | None:
    """The item rule limiting what the caller reads, if any."""
    if caller.admin or action != "read":
        return None
    access = caller.access(EPCIS_EVENTS, action)
    return access.rule if access is not None else None


def request_scope(
    caller: Accountability, action: str, bindings: PrefixBindings | None = None
) -> EventScope:
    """The scope of an EPCIS request, as `event_scope`; what the public policy does not
    allow raises AuthenticationRequired (answered 401), all else Forbidden (403)."""
    try:
        return event_scope(caller, action, bindings)
    except Forbidden as exc:
        if caller.user is None:
            raise AuthenticationRequired(
                "Authentication required: send Authorization: Bearer <static token>"
            ) from exc
        raise


def reads_by_rule(caller: Accountability) -> bool:
    """Whether an item rule limits which events the caller reads. Such a caller sees only
    the capture jobs it made itself: a job's errors quote values of events it may not see."""
    if caller.admin:
        return False
    access = caller.access(EPCIS_EVENTS, "read")
    return access is None or access.rule is not None


def event_scope(
    caller: Accountability, action: str, bindings: PrefixBindings | None = None
) -> EventScope:
    """Capture needs `create`, queries and named queries `read`; Forbidden otherwise.

    For `read`, the scope of the caller's item rules, their CURIEs read by `bindings`:
    every query, named query and page they run is limited to it. A rule that cannot be
    applied (a CURIE whose prefix is ambiguous) denies; it never widens.
    """
    if caller.admin:
        return None
    access = caller.access(EPCIS_EVENTS, action)
    if access is None:
        raise Forbidden(f'You don\'t have permission to "{action}" EPCIS events.')
    if action != "read":
        return None
    scope: EventScope = None
    if access.rule is not None:
        try:
            scope = rule_scope(access.rule, caller, bindings)
        except (EventRuleError, QueryError, FieldForbidden) as exc:
            raise Forbidden(
                f"A permission rule on {EPCIS_EVENTS} cannot be applied: {exc}"
            ) from exc
    return _within_accounts(scope, caller.accounts)


def _within_accounts(scope: EventScope, accounts: tuple[str, ...] | None) -> EventScope:
    """A tenant sees only the events its own users captured."""
    if accounts is None:
        return scope
    return tuple(
        dataclasses.replace(query, capture_accounts=accounts)
        for query in (scope if scope is not None else (EventQuery(),))
    )


def rule_scope(
    rule: object, caller: Accountability | None = None, bindings: PrefixBindings | None = None
) -> tuple[EventQuery, ...]:
    """The event queries an item rule on `epcis_event` allows, its CURIEs read by
    `bindings`; raises EventRuleError, QueryError or FieldForbidden when it is not a rule
    on events."""
    return allowed_queries(_resolved(rule, caller), bindings)


def _resolved(rule: object, caller: Accountability | None) -> Filter:
    """The rule with its variables (`$CURRENT_USER`, `$NOW`) resolved for the caller."""
    context = VariableContext(
        user_id=caller.user if caller else None,
        role_id=caller.role if caller else None,
        roles=caller.roles if caller else (),
        policies=caller.policy_ids if caller else (),
        now=datetime.now(UTC),
    )
    return resolve_variables(parse_filter(rule), context)
