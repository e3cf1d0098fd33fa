"""Who may use the EPCIS API, and which events they see: permissions on `epcis_event`."""

import dataclasses
from datetime import UTC, datetime

from application.errors import Forbidden
from domain.access.policies import Accountability
from domain.collections.filters import parse_filter
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.variables import VariableContext, resolve_variables
from domain.epcis.event_query import EventQuery
from domain.epcis.event_rules import EventRuleError, allowed_queries

#: The collection that permission rows name for the EPCIS API.
EPCIS_EVENTS = "epcis_event"

#: The events a caller may read: None for all of them, else those matching any query.
EventScope = tuple[EventQuery, ...] | None


class AuthenticationRequired(Forbidden):
    """The public may not do this: a caller who sends a token might."""


def request_scope(caller: Accountability, action: str) -> EventScope:
    """The scope of an EPCIS request, as `event_scope`; what the public policy does not
    allow raises AuthenticationRequired (answered 401), all else Forbidden (403)."""
    try:
        return event_scope(caller, action)
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


def event_scope(caller: Accountability, action: str) -> EventScope:
    """Capture needs `create`, queries and named queries `read`; Forbidden otherwise.

    For `read`, the scope of the caller's item rules: every query, named query and page
    they run is limited to it. A rule that cannot be applied denies; it never widens.
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
            scope = rule_scope(access.rule, caller)
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


def rule_scope(rule: object, caller: Accountability | None = None) -> tuple[EventQuery, ...]:
    """The event queries an item rule on `epcis_event` allows; raises EventRuleError,
    QueryError or FieldForbidden when it is not a rule on events."""
    context = VariableContext(
        user_id=caller.user if caller else None,
        role_id=caller.role if caller else None,
        roles=caller.roles if caller else (),
        policies=caller.policy_ids if caller else (),
        now=datetime.now(UTC),
    )
    return allowed_queries(resolve_variables(parse_filter(rule), context))
