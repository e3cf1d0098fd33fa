"""Validation of queries and filters against a collection schema, into the normalised
form that storage compiles and `matches` evaluates."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, overload

from domain.collections.coercion import MAX_SAFE_INTEGER, check_text, coerce_value, regex_pattern
from domain.collections.deep import Aliases, Deep
from domain.collections.filters import And, Condition, Filter, Or, Purpose, Related
from domain.collections.item_query import Aggregate, ItemQuery
from domain.collections.operators import (
    FIELD_OPERATORS,
    FLAG_OPPOSITES,
    HASH_OPERATORS,
    LIST_OPERATORS,
    RANGES,
    VALIDATION_ONLY,
    operators_for,
)
from domain.collections.paths import (
    MAX_RELATIONAL_DEPTH,
    PathRules,
    enter_relation,
    path_segments,
    readable_member,
)
from domain.collections.query_errors import QueryError
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema
from domain.collections.selection import is_concealed, select
from domain.collections.variables import is_variable

# A bound that keeps hostile input from costing more than a clear error.
_MAX_LIST_VALUES = 10_000
#: Aggregate functions that add up values: number fields only.
_NUMERIC_AGGREGATES = frozenset({"sum", "sumDistinct", "avg", "avgDistinct"})
_NUMBER_TYPES = frozenset({FieldType.INTEGER, FieldType.FLOAT})


@overload
def validate(
    target: ItemQuery,
    collection: Collection,
    schema: Schema,
    *,
    allowed_fields: Mapping[str, frozenset[str]] | None = None,
) -> ItemQuery: ...


@overload
def validate(
    target: Filter,
    collection: Collection,
    schema: Schema,
    *,
    allowed_fields: Mapping[str, frozenset[str]] | None = None,
    purpose: Purpose = "query",
) -> Filter: ...


def validate(
    target: ItemQuery | Filter,
    collection: Collection,
    schema: Schema,
    *,
    allowed_fields: Mapping[str, frozenset[str]] | None = None,
    purpose: Purpose = "query",
) -> ItemQuery | Filter:
    """The query or filter checked against the schema, in the normalised form.

    Paths must exist and, when `allowed_fields` (collection -> readable field names, "*"
    for all) is given, be readable and cross only into collections it holds, else
    FieldForbidden. Operators must suit the field's
    type and values its operator, else QueryError. Values are cast to the field's type,
    `_eq: null` becomes `_null` and `_null: false` becomes `_nnull`. Validating a
    validated filter returns it unchanged.

    A query with `aggregate` or `group_by` ignores `fields`; its aggregated and grouped
    fields must be readable fields of the collection itself, and it sorts by those.
    """
    rules = PathRules(schema, allowed_fields, purpose)
    if not isinstance(target, ItemQuery):
        return _validate_filter(target, collection, rules, 0)
    if target.aggregating:
        _validate_aggregation(target, collection, rules)
    else:
        _validate_aliases(target.alias, collection, rules)
        deep = _validate_deep(target.deep, target.alias, collection, rules, 0)
        select(target.fields, collection, schema, allowed_fields, alias=target.alias, deep=deep)
        for path, _ in target.sort:
            _validate_sort(path, collection, rules)
        target = replace(target, deep=deep)
    if target.filter is None:
        return target
    return replace(target, filter=_validate_filter(target.filter, collection, rules, 0))


def _validate_aliases(aliases: Aliases, collection: Collection, rules: PathRules) -> None:
    for key, source in aliases:
        if collection.field(key) is not None or collection.alias(key) is not None:
            raise QueryError(f'The alias "{key}" is a field of {collection.name} already.')
        readable_member(collection, source, rules)


def _validate_deep(
    deep: Deep, aliases: Aliases, collection: Collection, rules: PathRules, depth: int
) -> Deep:
    """`deep` checked like a query of each relation it names: the relation must be
    readable, and so must what its filter, sort and aliases name."""
    sources = dict(aliases)
    checked = []
    for name, nested in deep:
        member = readable_member(collection, sources.get(name, name), rules)
        if isinstance(member, Field) and member.relation is None:
            raise QueryError(f'"deep" applies to relations; "{name}" is not one.')
        target = enter_relation(member, collection, rules)
        _check_path((name,), depth)
        _validate_aliases(nested.alias, target, rules)
        for path, _ in nested.sort:
            _validate_sort(path, target, rules)
        nested_filter = nested.filter
        if nested_filter is not None:
            nested_filter = _validate_filter(nested_filter, target, rules, depth + 1)
        inner = _validate_deep(nested.deep, nested.alias, target, rules, depth + 1)
        checked.append((name, replace(nested, filter=nested_filter, deep=inner)))
    return tuple(checked)


def _validate_filter(node: Filter, collection: Collection, rules: PathRules, depth: int) -> Filter:
    match node:
        case And(items):
            return And(tuple(_validate_filter(item, collection, rules, depth) for item in items))
        case Or(items):
            return Or(tuple(_validate_filter(item, collection, rules, depth) for item in items))
        case Condition():
            return _validate_condition(node, collection, rules, depth)
        case Related():
            return _validate_related(node, collection, rules, depth)
    raise QueryError("A filter must be an object.")


def _validate_condition(
    condition: Condition, collection: Collection, rules: PathRules, depth: int
) -> Filter:
    path = condition.path
    _check_path(path, depth)
    current = collection
    for index, name in enumerate(path[:-1]):
        member = readable_member(current, name, rules)
        if isinstance(member, Alias):
            inner = Condition(path[index + 1 :], condition.operator, condition.value)
            return _validate_related(Related(path[: index + 1], inner), collection, rules, depth)
        current = enter_relation(member, current, rules)
    member = readable_member(current, path[-1], rules)
    if isinstance(member, Alias):
        raise QueryError(
            f'"{member.name}" is a to-many relation: filter on the fields of its items,'
            ' or use "_some" or "_none".'
        )
    op, value = _validate_operator(member, condition.operator, condition.value, rules.purpose)
    return Condition(path, op, value)


def _validate_related(
    related: Related, collection: Collection, rules: PathRules, depth: int
) -> Filter:
    path = related.path
    _check_path(path, depth)
    current = collection
    for index, name in enumerate(path):
        member = readable_member(current, name, rules)
        if isinstance(member, Alias):
            if index < len(path) - 1:
                inner: Filter = Related(path[index + 1 :], related.filter, related.quantifier)
                return _validate_related(
                    Related(path[: index + 1], inner), collection, rules, depth
                )
            target = enter_relation(member, current, rules)
            checked = _validate_filter(related.filter, target, rules, depth + len(path))
            return Related(path, checked, related.quantifier or "_some")
        current = enter_relation(member, current, rules)
    if related.quantifier is not None:
        raise QueryError(
            f'"{related.quantifier}" applies to to-many relations only; "{path[-1]}" is not one.'
        )
    return _prefixed(_validate_filter(related.filter, current, rules, depth + len(path)), path)


def _prefixed(node: Filter, prefix: tuple[str, ...]) -> Filter:
    """The filter seen from the collection a many-to-one path `prefix` starts in."""
    match node:
        case And(items):
            return And(tuple(_prefixed(item, prefix) for item in items))
        case Or(items):
            return Or(tuple(_prefixed(item, prefix) for item in items))
        case Condition() | Related():
            return replace(node, path=prefix + node.path)


def _check_path(path: tuple[str, ...], depth: int) -> None:
    if not path:
        raise QueryError("A filter condition needs a field.")
    if depth + len(path) > MAX_RELATIONAL_DEPTH:
        raise QueryError("Max relational depth exceeded.")


def _validate_sort(path: str, collection: Collection, rules: PathRules) -> None:
    segments = path_segments(path)
    current = collection
    for name in segments[:-1]:
        member = readable_member(current, name, rules)
        if isinstance(member, Alias):
            raise QueryError(f'Cannot sort by "{path}": "{name}" is a to-many relation.')
        current = enter_relation(member, current, rules)
    member = readable_member(current, segments[-1], rules)
    if isinstance(member, Alias):
        raise QueryError(f'Cannot sort by "{path}": "{member.name}" is a to-many relation.')
    if is_concealed(member):
        # The order of secrets would leak them bit by bit.
        raise QueryError(f'Cannot sort by the concealed field "{path}".')


def _validate_aggregation(query: ItemQuery, collection: Collection, rules: PathRules) -> None:
    for name in query.group_by:
        if is_concealed(_own_field(collection, name, rules, "groupBy")):
            raise QueryError(f'Cannot group by the concealed field "{name}".')
    counts_items = {a.function for a in query.aggregate if a.field == "*"}
    for aggregate in query.aggregate:
        _validate_aggregate(aggregate, collection, rules)
        if aggregate.field != "*" and aggregate.function in counts_items:
            raise QueryError(f'"aggregate[{aggregate.function}]" takes "*" or fields, not both.')
    functions = {a.function for a in query.aggregate}
    clash = next((name for name in query.group_by if name in functions), None)
    if clash is not None:
        raise QueryError(f'The groupBy field "{clash}" has the name of an aggregate.')
    sortable = {*query.group_by, *(a.name for a in query.aggregate)}
    for path, _ in query.sort:
        if path not in sortable:
            raise QueryError(
                f'Cannot sort by "{path}": with aggregate or groupBy, sort by a groupBy field'
                ' or an aggregate such as "count" or "sum.quantity".'
            )


def _validate_aggregate(aggregate: Aggregate, collection: Collection, rules: PathRules) -> None:
    function, name = aggregate
    if name == "*":
        if function not in ("count", "countAll"):
            raise QueryError(f'"aggregate[{function}]" takes fields, not "*".')
        return
    field = _own_field(collection, name, rules, "aggregate")
    if function in _NUMERIC_AGGREGATES and field.type not in _NUMBER_TYPES:
        raise QueryError(
            f'"{function}" takes number fields only; "{name}" is of type "{field.type}".'
        )
    if function in ("min", "max") and field.type is FieldType.JSON:
        raise QueryError(f'"{function}" does not take the JSON field "{name}".')
    if function != "count" and is_concealed(field):
        # Counting values reveals no more than `_nnull`; anything else would leak them.
        raise QueryError(f'"{function}" does not take the concealed field "{name}".')


def _own_field(collection: Collection, name: str, rules: PathRules, parameter: str) -> Field:
    """A stored, readable field of the collection itself, named in `aggregate` or `groupBy`."""
    segments = path_segments(name)
    if len(segments) > 1:
        raise QueryError(f'"{parameter}" takes fields of the collection itself, not "{name}".')
    member = readable_member(collection, name, rules)
    if isinstance(member, Alias):
        raise QueryError(f'"{parameter}" cannot take the to-many relation "{name}".')
    return member


def _validate_operator(field: Field, op: str, value: Any, purpose: Purpose) -> tuple[str, Any]:
    if op not in FIELD_OPERATORS:
        raise QueryError(f'Unknown filter operator "{op}".')
    if op in VALIDATION_ONLY:
        return _validate_validation_operator(field, op, value, purpose)
    if op not in operators_for(field):
        raise QueryError(f'"{field.type}" field type does not contain the "{op}" filter operator.')
    if field.concealed and op not in HASH_OPERATORS:
        raise QueryError(f'Field with "conceal" special does not allow the "{op}" filter operator.')
    value = _literal(value)
    if op in FLAG_OPPOSITES:
        return (op, True) if _flag(op, value) else (FLAG_OPPOSITES[op], True)
    if op in LIST_OPERATORS:
        return op, _list_value(op, value, field, purpose)
    if value is None and op in ("_eq", "_neq"):
        return ("_null" if op == "_eq" else "_nnull"), True
    return op, _checked_value(op, value, field, purpose)


def _validate_validation_operator(
    field: Field, op: str, value: Any, purpose: Purpose
) -> tuple[str, Any]:
    if purpose != "validation":
        raise QueryError(f'The "{op}" filter operator is for validation rules only.')
    if op == "_submitted":
        return op, _flag(op, _literal(value))
    if field.type not in (FieldType.STRING, FieldType.TEXT) or field.concealed:
        raise QueryError(f'"{field.type}" field type does not contain the "{op}" filter operator.')
    if not isinstance(value, str):
        raise QueryError('"_regex" needs a regular expression as a string.')
    try:
        regex_pattern(value)
    except re.error as exc:
        raise QueryError(f'"{value}" is not a valid regular expression: {exc}.') from exc
    return op, value


_LITERALS: Mapping[str, bool | None] = {"true": True, "false": False, "null": None, "NULL": None}


def _literal(value: Any) -> Any:
    """Directus reads the strings "true", "false" and "null" as the JSON values."""
    return _LITERALS.get(value, value) if isinstance(value, str) else value


def _flag(op: str, value: Any) -> bool:
    if value is None or value == "":
        return True
    if not isinstance(value, bool):
        raise QueryError(f'"{op}" has to be a boolean.')
    return value


def _list_value(op: str, value: Any, field: Field, purpose: Purpose) -> tuple[Any, ...]:
    if isinstance(value, str):
        values: Sequence[Any] = [value] if is_variable(value) else value.split(",")
    elif isinstance(value, list | tuple):
        values = value
    else:
        raise QueryError(f'"{op}" has to be an array of values.')
    # Rules may hold an empty list (an empty $CURRENT_ROLES); it matches nothing (_in).
    if not values and (purpose == "query" or op in RANGES):
        raise QueryError(f'"{op}" has to be an array of values.')
    if op in RANGES and len(values) != 2:
        raise QueryError(f'"{op}" has to be an array of two values.')
    if len(values) > _MAX_LIST_VALUES:
        raise QueryError(f'"{op}" takes at most {_MAX_LIST_VALUES} values.')
    return tuple(_checked_value(op, _literal(item), field, purpose) for item in values)


def _checked_value(op: str, value: Any, field: Field, purpose: Purpose) -> Any:
    """One value of a condition, cast to the field's type; variables wait for resolution."""
    if is_variable(value):
        return value
    return coerce_value(_primitive(op, value, purpose), field, op)


def _primitive(op: str, value: Any, purpose: Purpose) -> str | int | float | bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if not math.isfinite(value) or abs(value) > MAX_SAFE_INTEGER:
            raise QueryError(f'The filter value for "{op}" is not a valid number.')
        return value
    if isinstance(value, str):
        check_text(value, f'The filter value for "{op}"')
        if not value and purpose == "query":
            raise QueryError(
                f'You can\'t filter for an empty string in "{op}". Use "_empty" or "_nempty"'
                " instead."
            )
        return value
    raise QueryError(f'The filter value for "{op}" has to be a string, number, or boolean.')
