"""A caller's permissions applied to items: read scope, item rules, write access."""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from application.items.rules import Item
from application.service.errors import Forbidden
from domain.access.policies import Accountability, CollectionAccess
from domain.collections.filters import Filter, parse_filter
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Collection, Schema
from domain.collections.validation import validate
from domain.collections.variables import VariableContext, resolve_value, resolve_variables
from domain.masterdata.tenancy import ACCOUNT, ACCOUNT_FIELD
from projections.items.reader import ItemReader


@dataclass(frozen=True)
class ReadScope:
    """What a caller may read (all None for administrators): the root collection's item
    rule, the readable fields and the item rules of every readable collection."""

    root: Filter | None
    fields: Mapping[str, frozenset[str]] | None
    rules: Mapping[str, Filter] | None


class _RulesOnDemand(Mapping[str, Filter]):
    """The item rules of the readable collections, each worked out (parsed, checked,
    its variables resolved) when a query first reaches its collection: a read touches a
    few of the dozens of collections a caller may read."""

    def __init__(self, rule_of: Callable[[str], Filter | None], names: Iterable[str]) -> None:
        self._rule_of = rule_of
        self._names = tuple(names)
        self._known: dict[str, Filter | None] = {}

    def __getitem__(self, name: str) -> Filter:
        if name not in self._known:
            if name not in self._names:
                raise KeyError(name)
            self._known[name] = self._rule_of(name)
        rule = self._known[name]
        if rule is None:
            raise KeyError(name)
        return rule

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class ItemPermissions:
    """Turns a caller's permissions into what the items service applies: item rules as
    filters, the read scope of a query, the access a write needs."""

    def __init__(self, schema: Schema, reader: ItemReader, clock: Callable[[], datetime]) -> None:
        self._schema = schema
        self._reader = reader
        self._clock = clock

    def read_scope(self, caller: Accountability, spec: Collection) -> ReadScope:
        """What the caller may read: per readable collection its fields and item rule."""
        if caller.admin:
            return ReadScope(None, None, None)
        if caller.access(spec.name, "read") is None:
            raise Forbidden(no_collection(spec.name))
        fields: dict[str, frozenset[str]] = {}
        readable: dict[str, CollectionAccess] = {}
        for other in self._schema:
            access = caller.access(other.name, "read")
            if access is not None:
                fields[other.name] = frozenset(access.fields)
                readable[other.name] = access

        def rule_of(name: str) -> Filter | None:
            return self.rule(readable[name], self._schema[name], caller)

        rules = _RulesOnDemand(rule_of, readable)
        return ReadScope(rules.get(spec.name), fields, rules)

    def rule(
        self, access: CollectionAccess, spec: Collection, caller: Accountability
    ) -> Filter | None:
        """The item rule of a permission, confined to the caller's account where the
        collection belongs to accounts."""
        rules = [access.rule] if access.rule is not None else []
        if scoped(spec):
            rules.append(own_account(caller))
        if not rules:
            return None
        return self.filter(rules[0] if len(rules) == 1 else {"_and": rules}, spec, caller)

    def filter(
        self,
        raw: Any,
        spec: Collection,
        caller: Accountability,
        purpose: Literal["permission", "validation"] = "permission",
    ) -> Filter:
        """A rule of a permission as a checked filter, its variables resolved."""
        # Rules are written by administrators; one that no longer fits the schema denies
        # rather than errs, so a stale rule never widens access.
        try:
            parsed = validate(parse_filter(raw), spec, self._schema, purpose=purpose)
            return resolve_variables(parsed, variables(caller, self._clock()))
        except (QueryError, FieldForbidden) as exc:
            raise Forbidden(f"A permission rule of {spec.name} cannot be applied: {exc}") from exc

    def write_access(
        self, caller: Accountability, spec: Collection, action: str
    ) -> CollectionAccess | None:
        """The caller's permission for `action` on the collection (None: administrator);
        Forbidden where the collection takes no such write or the caller has none."""
        if spec.read_only:
            raise Forbidden(no_permission(action, spec.name))
        if spec.bulk and action != "update":
            raise Forbidden(
                f'Items of "{spec.name}" are made by the service; they can be changed but'
                f" not {action}d by a request."
            )
        if caller.admin:
            return None
        access = caller.access(spec.name, action)
        if access is None:
            raise Forbidden(no_permission(action, spec.name))
        return access

    def require_visible(
        self,
        caller: Accountability,
        spec: Collection,
        access: CollectionAccess | None,
        action: str,
        keys: Sequence[Any],
    ) -> None:
        """Every key must exist and pass the action's item rule, or nothing happens."""
        restrict = self.rule(access, spec, caller) if access is not None else None
        found = self._reader.count(spec.name, restrict=restrict, keys=keys)
        if found != len(set(keys)):
            raise Forbidden(no_permission(action, spec.name))


def scoped(spec: Collection) -> bool:
    """Whether the collection's items belong to accounts (a multi-tenant installation)."""
    field = spec.field(ACCOUNT_FIELD)
    return field is not None and field.relation == ACCOUNT.name


def own_account(caller: Accountability) -> dict[str, Any]:
    """The rule that keeps a caller to their account's items; none for a caller without
    an account."""
    if caller.account is None:
        return {"_and": [{ACCOUNT_FIELD: {"_null": True}}, {ACCOUNT_FIELD: {"_nnull": True}}]}
    return {ACCOUNT_FIELD: {"_eq": caller.account}}


def variables(caller: Accountability, now: datetime) -> VariableContext:
    """What the dynamic variables of a rule or query (`$CURRENT_USER`, `$NOW`) stand for."""
    return VariableContext(
        user_id=caller.user,
        role_id=caller.role,
        roles=caller.roles,
        policies=caller.policy_ids,
        now=now,
    )


def resolved(presets: Item, caller: Accountability, now: datetime) -> Item:
    """A permission's presets with their variables resolved."""
    context = variables(caller, now)
    values = {}
    for name, value in presets.items():
        try:
            values[name] = resolve_value(value, context)
        except QueryError:
            # Text that merely starts with "$" ("$5 off") is a value, not a variable.
            values[name] = value
    return values


def no_collection(name: str) -> str:
    """Directus's refusal of a collection the caller cannot reach."""
    return f'You don\'t have permission to access collection "{name}" or it does not exist.'


def no_permission(action: str, name: str) -> str:
    """Directus's refusal of an action on a collection."""
    return (
        f'You don\'t have permission to perform "{action}" for collection "{name}"'
        " or it does not exist."
    )


def no_field(field: str, name: str) -> str:
    """Directus's refusal of a field the caller cannot reach."""
    return (
        f'You don\'t have permission to access field "{field}" in collection "{name}"'
        " or it does not exist."
    )
