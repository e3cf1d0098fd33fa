"""The filter tree of the query language and `parse_filter`, which reads it from JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from domain.collections.operators import FIELD_OPERATORS
from domain.collections.query_errors import QueryError

#: Deepest a filter may nest: a bound that keeps hostile input from costing more than
#: a clear error.
MAX_NESTING = 64

Quantifier = Literal["_some", "_none"]
#: What a filter is for. "query": a client's filter. "permission": an item rule, which
#: may hold values a client may not send (an empty `$CURRENT_ROLES`). "validation": a
#: payload check, which may also use `_regex` and `_submitted`.
Purpose = Literal["query", "permission", "validation"]

_LOGICAL = frozenset({"_and", "_or"})
_QUANTIFIERS = frozenset({"_some", "_none"})


@dataclass(frozen=True)
class And:
    """Every item holds; no items always holds."""

    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Or:
    """At least one item holds; no items never holds."""

    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Condition:
    """The field at `path` compared by `operator` with `value`.

    Validated, `path` crosses many-to-one fields only and ends at a stored field.
    """

    path: tuple[str, ...]
    operator: str
    value: Any = None


@dataclass(frozen=True)
class Related:
    """A condition on the items a relation leads to; `filter` applies in their collection.

    Parsed, `path` is a relational field and `quantifier` is None unless the filter named
    `_some` or `_none`. Validated, many-to-one relations are folded into the paths of the
    conditions inside, so `path` crosses many-to-one fields and ends at a to-many alias,
    and `quantifier` says whether some (the default) or none of its items must match.
    """

    path: tuple[str, ...]
    filter: Filter
    quantifier: Quantifier | None = None


Filter = And | Or | Condition | Related


def parse_filter(raw: Any) -> Filter:
    """A filter from its decoded JSON object, as Directus reads it.

    A bare value means `_eq`, several keys are an implicit `_and`, and an empty `_and` or
    `_or` adds no condition. `_and`/`_or` under a field are lifted over it, as Directus
    does: `{"f": {"_or": [a, b]}}` is `{"_or": [{"f": a}, {"f": b}]}`. Lifting keeps the
    meaning for stored and many-to-one fields and for `_or` under to-many relations; an
    `_and` under a to-many relation becomes one `_some` per branch (Directus's meaning).
    """
    return _parse_object(raw, 0)


def _parse_object(raw: Any, depth: int) -> Filter:
    _check_nesting(depth)
    if not isinstance(raw, Mapping):
        raise QueryError("A filter must be an object.")
    return _all([_parse_entry(key, value, depth) for key, value in raw.items()])


def _parse_entry(key: Any, value: Any, depth: int) -> Filter:
    _check_key(key)
    if key in _LOGICAL:
        return _parse_logical(key, value, lambda item: _parse_object(item, depth + 1))
    if key.startswith("_"):
        if key in FIELD_OPERATORS or key in _QUANTIFIERS:
            raise QueryError(f'The filter operator "{key}" needs a field.')
        raise QueryError(f'Unknown filter operator "{key}".')
    return _parse_field(key, value, depth + 1)


def _parse_field(name: str, value: Any, depth: int) -> Filter:
    """The conditions on one field: `value` is a bare value or an object of operators,
    logical operators, quantifiers and (for relations) the related collection's fields."""
    _check_nesting(depth)
    if not isinstance(value, Mapping):
        return Condition((name,), "_eq", value)
    parts: list[Filter] = []
    related: dict[str, Any] = {}
    for key, item in value.items():
        _check_key(key)
        if key in _LOGICAL:
            parts.append(_parse_logical(key, item, lambda sub: _parse_field(name, sub, depth + 1)))
        elif key in _QUANTIFIERS:
            parts.append(Related((name,), _parse_object(item, depth + 1), key))
        elif key.startswith("_"):
            if key not in FIELD_OPERATORS:
                raise QueryError(f'Unknown filter operator "{key}".')
            parts.append(Condition((name,), key, item))
        else:
            related[key] = item
    if related:
        # One group, so a to-many relation's conditions hold on the same related item.
        parts.append(Related((name,), _parse_object(related, depth + 1)))
    return _all(parts)


def _parse_logical(key: str, value: Any, parse_item: Callable[[Any], Filter]) -> Filter:
    if not isinstance(value, list | tuple):
        raise QueryError(f'"{key}" has to be an array of filters.')
    items = [parse_item(item) for item in value]
    if len(items) == 1:
        return items[0]
    # Directus adds no condition for an empty group, whichever the operator.
    return Or(tuple(items)) if key == "_or" and items else And(tuple(items))


def _all(parts: list[Filter]) -> Filter:
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _check_key(key: Any) -> None:
    if not isinstance(key, str) or not key:
        raise QueryError("Filter keys must be non-empty strings.")


def _check_nesting(depth: int) -> None:
    if depth > MAX_NESTING:
        raise QueryError("The filter is nested too deeply.")
