"""`matches`: whether an item satisfies a validated filter, evaluated in Python."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.collections.coercion import coerce_value, regex_pattern
from domain.collections.filters import And, Condition, Filter, Or, Related
from domain.collections.operators import (
    ARRAY_OPERATORS,
    COMPARISONS,
    FLAG_OPPOSITES,
    RANGES,
    STRING_MATCHES,
)
from domain.collections.query_errors import QueryError
from domain.collections.schema import Collection, Field, Schema


class _Incomparable:
    """An item value that cannot be cast to its field's type: no condition holds on it."""


_INCOMPARABLE = _Incomparable()


def matches(
    filter: Filter,
    item: Mapping[str, Any],
    collection: Collection,
    *,
    schema: Schema | None = None,
    partial: bool = False,
) -> bool:
    """Whether an item (a payload or a row, as a dict) satisfies a validated filter.

    Comparisons follow the SQL: only `_null`/`_empty` (and their negations) hold on a
    null value. A relation path holds only where the item carries the related item as a
    nested dict (to-many: a list of dicts) and `schema` is given to know its fields.
    `partial=True` checks a payload the Directus way: a condition on a key the payload
    does not carry holds, except `_submitted`, which asks for the key.
    """
    return _Evaluation(schema, partial).holds(filter, item, collection)


class _Evaluation:
    def __init__(self, schema: Schema | None, partial: bool) -> None:
        self._schema = schema
        self._partial = partial

    def holds(self, node: Filter, item: Mapping[str, Any], collection: Collection) -> bool:
        match node:
            case And(items):
                return all(self.holds(part, item, collection) for part in items)
            case Or(items):
                return any(self.holds(part, item, collection) for part in items)
            case Condition():
                return self._condition(node, item, collection)
            case Related():
                return self._related(node, item, collection)

    def _condition(
        self, condition: Condition, item: Mapping[str, Any], collection: Collection
    ) -> bool:
        reached = self._reach(item, condition.path[:-1], collection)
        if isinstance(reached, bool):
            return reached and condition.operator != "_submitted"
        container, current = reached
        name = condition.path[-1]
        if condition.operator == "_submitted":
            return (name in container) is condition.value
        if name not in container and self._partial:
            return True
        member = current.field(name)
        if member is None:
            return False
        return _holds(member, condition.operator, condition.value, container.get(name))

    def _related(self, related: Related, item: Mapping[str, Any], collection: Collection) -> bool:
        reached = self._reach(item, related.path[:-1], collection)
        if isinstance(reached, bool):
            return reached
        container, current = reached
        name = related.path[-1]
        if name not in container:
            return self._partial
        link = current.alias(name)
        children = container[name]
        if self._schema is None or link is None or not isinstance(children, list):
            return False
        if not all(isinstance(child, Mapping) for child in children):
            return False
        target = self._schema[link.collection]
        found = any(self.holds(related.filter, child, target) for child in children)
        return found if related.quantifier != "_none" else not found

    def _reach(
        self, item: Mapping[str, Any], path: tuple[str, ...], collection: Collection
    ) -> tuple[Mapping[str, Any], Collection] | bool:
        """The nested item and collection at the end of a many-to-one path, or the
        verdict when there is none: `partial` for a missing key, else False."""
        container, current = item, collection
        for name in path:
            if name not in container:
                return self._partial
            nested = container[name]
            member = current.field(name)
            if self._schema is None or member is None or member.relation is None:
                return False
            if not isinstance(nested, Mapping):
                return False
            container, current = nested, self._schema[member.relation]
        return container, current


def _holds(field: Field, op: str, target: Any, raw: Any) -> bool:
    if target is None and op in ("_eq", "_neq"):
        # A variable resolved to null after validation: Directus's IS (NOT) NULL.
        return (raw is None) == (op == "_eq")
    if op in FLAG_OPPOSITES:
        empty = raw is None or (op in ("_empty", "_nempty") and raw == "")
        return empty if op in ("_null", "_empty") else not empty
    if raw is None:
        return False
    if op == "_regex":
        return isinstance(raw, str) and regex_pattern(target).search(raw) is not None
    if field.array and op in ARRAY_OPERATORS:
        return isinstance(raw, list) and (str(target) in raw) == (op == "_contains")
    value = _item_value(raw, field)
    if value is _INCOMPARABLE:
        return False
    try:
        return _compare(op, value, target)
    except TypeError:
        return False


def _compare(op: str, value: Any, target: Any) -> bool:
    if op in COMPARISONS:
        return COMPARISONS[op](value, target)
    if op in ("_in", "_nin"):
        return (value in target) == (op == "_in")
    if op in RANGES:
        return bool(target[0] <= value <= target[1]) == (op == "_between")
    spec = STRING_MATCHES[op]
    if not isinstance(value, str) or not isinstance(target, str):
        return False
    if spec.insensitive:
        value, target = value.lower(), target.lower()
    found: bool
    if spec.at_start:
        found = value.startswith(target)
    elif spec.at_end:
        found = value.endswith(target)
    else:
        found = target in value
    return found != spec.negated


def _item_value(raw: Any, field: Field) -> Any:
    if not isinstance(raw, str | int | float | bool):
        return _INCOMPARABLE
    try:
        return coerce_value(raw, field)
    except QueryError:
        return _INCOMPARABLE
