"""The Directus query language over platform collections, independent of storage.

`parse_query` and `query_from_object` read the global query parameters into an
`ItemQuery`; `parse_filter` reads a filter rule; `resolve_variables` fills in the dynamic
variables; `validate` checks paths, operators and values against the schema and returns
the normalised form that `projections.item_queries` compiles to SQL and `matches`
evaluates in Python. Behaviour follows Directus 11; deviations say so where they occur.
"""

from __future__ import annotations

import calendar
import dataclasses
import json
import math
import operator
import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal, NamedTuple, overload

from domain.collections.schema import Alias, Collection, Field, FieldType, Schema

#: Most field names a path may chain, across relations (Directus MAX_RELATIONAL_DEPTH).
MAX_RELATIONAL_DEPTH = 10
#: Largest number a filter, limit, offset or page may hold (JavaScript's safe integers).
MAX_SAFE_INTEGER = 2**53 - 1
#: What a concealed field reads as when it holds a value.
CONCEALED = "**********"
#: The counts the `meta` parameter can ask for.
META_COUNTS = frozenset({"total_count", "filter_count"})

# Bounds that keep hostile input from costing more than a clear error.
_MAX_NESTING = 64
_MAX_LIST_VALUES = 10_000
_MAX_NESTED_SELECTIONS = 500

#: Directus parameters this service does not implement: refused rather than ignored,
#: because ignoring them would answer a different question than the one asked.
_UNSUPPORTED_PARAMETERS = frozenset({"aggregate", "groupBy", "deep", "alias"})

Quantifier = Literal["_some", "_none"]
#: What a filter is for. "query": a client's filter. "permission": an item rule, which
#: may hold values a client may not send (an empty `$CURRENT_ROLES`). "validation": a
#: payload check, which may also use `_regex` and `_submitted`.
Purpose = Literal["query", "permission", "validation"]


class QueryError(ValueError):
    """A malformed or invalid query: 400 INVALID_QUERY (the message omits "Invalid query.")."""


class FieldForbidden(Exception):
    """A field that does not exist or may not be read: 403 FORBIDDEN."""

    def __init__(self, field: str, collection: str) -> None:
        super().__init__(
            f'You don\'t have permission to access field "{field}" in collection'
            f' "{collection}" or it does not exist.'
        )
        self.field = field
        self.collection = collection


# --- The filter tree ------------------------------------------------------------------


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


# --- Operators --------------------------------------------------------------------------


class StringMatch(NamedTuple):
    """How a string operator matches: anchored at the start or end, case, negation."""

    at_start: bool
    at_end: bool
    insensitive: bool
    negated: bool


#: The string operators. Note: Directus 11.9 leaves `_nicontains` out of its type
#: whitelist although its docs list it; it is allowed here.
STRING_MATCHES: Mapping[str, StringMatch] = {
    "_contains": StringMatch(False, False, False, False),
    "_ncontains": StringMatch(False, False, False, True),
    "_icontains": StringMatch(False, False, True, False),
    "_nicontains": StringMatch(False, False, True, True),
    "_starts_with": StringMatch(True, False, False, False),
    "_nstarts_with": StringMatch(True, False, False, True),
    "_istarts_with": StringMatch(True, False, True, False),
    "_nistarts_with": StringMatch(True, False, True, True),
    "_ends_with": StringMatch(False, True, False, False),
    "_nends_with": StringMatch(False, True, False, True),
    "_iends_with": StringMatch(False, True, True, False),
    "_niends_with": StringMatch(False, True, True, True),
}
_COMPARISONS: Mapping[str, Callable[[Any, Any], bool]] = {
    "_eq": operator.eq,
    "_neq": operator.ne,
    "_lt": operator.lt,
    "_lte": operator.le,
    "_gt": operator.gt,
    "_gte": operator.ge,
}
# `_null: false` is `_nnull: true` and so on; validated filters only hold the `true` form.
_FLAG_OPPOSITES = {"_null": "_nnull", "_nnull": "_null", "_empty": "_nempty", "_nempty": "_empty"}
_LIST_OPERATORS = frozenset({"_in", "_nin", "_between", "_nbetween"})
_RANGES = frozenset({"_between", "_nbetween"})
_VALIDATION_ONLY = frozenset({"_regex", "_submitted"})
_LOGICAL = frozenset({"_and", "_or"})
_QUANTIFIERS = frozenset({"_some", "_none"})
FIELD_OPERATORS = frozenset(
    {*STRING_MATCHES, *_COMPARISONS, *_FLAG_OPPOSITES, *_LIST_OPERATORS, *_VALIDATION_ONLY}
)

_NULLS = frozenset({"_null", "_nnull"})
_HASH_OPERATORS = _NULLS | {"_empty", "_nempty"}
_STRING_OPERATORS = frozenset({*STRING_MATCHES, "_eq", "_neq", "_in", "_nin"}) | _HASH_OPERATORS
_ORDERED_OPERATORS = frozenset({*_COMPARISONS, *_LIST_OPERATORS}) | _NULLS
#: Operators each field type takes (Directus get-filter-operators-for-type).
OPERATORS_BY_TYPE: Mapping[FieldType, frozenset[str]] = {
    FieldType.STRING: _STRING_OPERATORS,
    FieldType.TEXT: _STRING_OPERATORS,
    FieldType.UUID: frozenset({"_eq", "_neq", "_in", "_nin"}) | _NULLS,
    FieldType.INTEGER: _ORDERED_OPERATORS,
    FieldType.FLOAT: _ORDERED_OPERATORS,
    FieldType.DATETIME: _ORDERED_OPERATORS,
    FieldType.BOOLEAN: frozenset({"_eq", "_neq"}) | _NULLS,
    FieldType.JSON: _NULLS,
    FieldType.HASH: _HASH_OPERATORS,
}


def is_concealed(field: Field) -> bool:
    """Whether a field's values never leave the service: concealed fields and hashes."""
    return field.concealed or field.type is FieldType.HASH


# --- Parsing filters --------------------------------------------------------------------


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
    if depth > _MAX_NESTING:
        raise QueryError("The filter is nested too deeply.")


# --- Parsing queries --------------------------------------------------------------------


@dataclass(frozen=True)
class ItemQuery:
    """A list query: which fields, which items, in which order, which page, which counts.

    `limit` None reads every item (the parameter's -1); `parse_query` applies the default.
    `sort` holds (dotted path, descending) pairs, earlier ones first.
    """

    fields: tuple[str, ...] = ("*",)
    filter: Filter | None = None
    search: str | None = None
    sort: tuple[tuple[str, bool], ...] = ()
    limit: int | None = None
    offset: int = 0
    meta: frozenset[str] = dataclasses.field(default_factory=frozenset)


_LIST_PARAMETERS = ("fields", "sort", "meta")
_SCALAR_PARAMETERS = ("search", "limit", "offset", "page")
_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])*)")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_INTEGER_TEXT = re.compile(r"\s*[+-]?[0-9]{1,20}\s*")


def parse_query(params: Iterable[tuple[str, str]], *, default_limit: int | None = 100) -> ItemQuery:
    """An item query from URL query parameters, in order; repeated keys are kept.

    `filter` comes as JSON or in bracket form (`filter[title][_eq]=x`); `fields`, `sort`
    and `meta` as CSV and/or arrays (`fields[]=a`). Other parameters (`access_token`,
    `export`, ...) are ignored here, except the unsupported `aggregate`, `groupBy`, `deep`
    and `alias`, which are refused.
    """
    lists: dict[str, list[str]] = {name: [] for name in _LIST_PARAMETERS}
    scalars: dict[str, str] = {}
    filter_json: list[str] = []
    filter_brackets: list[tuple[list[str], str]] = []
    for key, value in params:
        if not isinstance(key, str) or not isinstance(value, str):
            raise QueryError("Query parameter names and values must be text.")
        name, segments = _split_key(key)
        if name == "filter":
            if segments:
                filter_brackets.append((segments, value))
            else:
                filter_json.append(value)
        elif name in lists:
            if len(segments) > 1 or (
                segments and not (segments[0] == "" or segments[0].isdecimal())
            ):
                raise QueryError(f'Malformed query parameter "{key}".')
            lists[name].append(value)
        elif name in _SCALAR_PARAMETERS:
            if segments or name in scalars:
                raise QueryError(f'"{name}" must be given once, as a single value.')
            scalars[name] = value
    return _build_query(
        fields=lists["fields"],
        filter=_url_filter(filter_json, filter_brackets),
        search=scalars.get("search"),
        sort=lists["sort"],
        limit=scalars.get("limit"),
        offset=scalars.get("offset"),
        page=scalars.get("page"),
        meta=lists["meta"],
        default_limit=default_limit,
    )


def query_from_object(obj: Any, *, default_limit: int | None = 100) -> ItemQuery:
    """An item query from the `query` object of a SEARCH body: the URL parameters as JSON."""
    if not isinstance(obj, Mapping):
        raise QueryError("The query must be an object.")
    for key in obj:
        if not isinstance(key, str):
            raise QueryError("Query keys must be strings.")
        _refuse_unsupported(key)
    filter_value = obj.get("filter")
    if isinstance(filter_value, str):
        filter_value = _decode_filter_json(filter_value)
    search = obj.get("search")
    if search is not None and not isinstance(search, str):
        raise QueryError('"search" must be a string.')
    return _build_query(
        fields=_texts("fields", obj.get("fields")),
        filter=None if filter_value is None else parse_filter(filter_value),
        search=search,
        sort=_texts("sort", obj.get("sort")),
        limit=obj.get("limit"),
        offset=obj.get("offset"),
        page=obj.get("page"),
        meta=_texts("meta", obj.get("meta")),
        default_limit=default_limit,
    )


def _build_query(
    *,
    fields: Sequence[str],
    filter: Filter | None,
    search: str | None,
    sort: Sequence[str],
    limit: Any,
    offset: Any,
    page: Any,
    meta: Sequence[str],
    default_limit: int | None,
) -> ItemQuery:
    limit_value = default_limit if limit is None else _limit(limit)
    offset_value = 0 if offset is None else _integer("offset", offset, 0)
    page_value = 0 if page is None else _integer("page", page, 0)
    # Page 0 is ignored like Directus does (its check is "if page"); page wins over offset.
    if page_value > 0 and limit_value is not None:
        offset_value = limit_value * (page_value - 1)
        if offset_value > MAX_SAFE_INTEGER:
            raise QueryError('"page" is too large.')
    return ItemQuery(
        fields=tuple(_csv(fields)) or ("*",),
        filter=filter,
        search=_search(search),
        sort=tuple(_sort_term(term) for term in _csv(sort)),
        limit=limit_value,
        offset=offset_value,
        meta=_meta(_csv(meta)),
    )


def _search(term: str | None) -> str | None:
    if term:
        check_text(term, '"search"')
    return term or None


def _split_key(key: str) -> tuple[str, list[str]]:
    match = _KEY.fullmatch(key)
    if match is None:
        name = key.split("[", 1)[0]
        if name == "filter" or name in _LIST_PARAMETERS or name in _SCALAR_PARAMETERS:
            raise QueryError(f'Malformed query parameter "{key}".')
        return key, []
    name = match.group(1)
    _refuse_unsupported(name)
    return name, _BRACKET.findall(match.group(2))


def _refuse_unsupported(name: str) -> None:
    if name in _UNSUPPORTED_PARAMETERS:
        raise QueryError(f'The "{name}" query parameter is not supported.')


def _url_filter(json_values: list[str], brackets: list[tuple[list[str], str]]) -> Filter | None:
    if (json_values and brackets) or len(json_values) > 1:
        raise QueryError("Give the filter once: as JSON or in bracket form.")
    if brackets:
        return parse_filter(_bracket_object(brackets))
    if not json_values or not json_values[0]:
        return None
    decoded = _decode_filter_json(json_values[0])
    return None if decoded is None else parse_filter(decoded)


def _decode_filter_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise QueryError("Invalid JSON for filter object.") from exc


def _bracket_object(entries: list[tuple[list[str], str]]) -> Any:
    """The nested object that bracket-form keys describe, the way `qs` builds it."""
    root: dict[str, Any] = {}
    for segments, value in entries:
        if len(segments) > _MAX_NESTING:
            raise QueryError("The filter is nested too deeply.")
        append = segments[-1] == ""
        path = segments[:-1] if append else segments
        if not path or "" in path:
            raise QueryError("Malformed filter parameter.")
        node = root
        for segment in path[:-1]:
            child = node.setdefault(segment, {})
            if not isinstance(child, dict):
                raise QueryError(f'Conflicting filter parameters at "{segment}".')
            node = child
        existing = node.get(path[-1])
        if existing is None:
            node[path[-1]] = [value] if append else value
        elif isinstance(existing, list):
            existing.append(value)
        elif isinstance(existing, str):
            node[path[-1]] = [existing, value]
        else:
            raise QueryError(f'Conflicting filter parameters at "{path[-1]}".')
    return _with_arrays(root)


def _with_arrays(value: Any) -> Any:
    """Objects keyed 0, 1, ... become arrays, as `qs` (and Directus after it) reads them."""
    if not isinstance(value, dict):
        return value
    items = {key: _with_arrays(item) for key, item in value.items()}
    if items and all(key.isdecimal() for key in items):
        return [items[key] for key in sorted(items, key=int)]
    return items


def _texts(name: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return list(value)
    raise QueryError(f'"{name}" must be a string or an array of strings.')


def _csv(values: Iterable[str]) -> list[str]:
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _sort_term(term: str) -> tuple[str, bool]:
    descending = term.startswith("-")
    path = term[1:] if descending else term
    if not path:
        raise QueryError(f'Invalid sort field "{term}".')
    return path, descending


def _meta(values: list[str]) -> frozenset[str]:
    if "*" in values:
        return META_COUNTS
    unknown = [value for value in values if value not in META_COUNTS]
    if unknown:
        raise QueryError(f'"meta" must be total_count, filter_count or *, not "{unknown[0]}".')
    return frozenset(values)


def _limit(value: Any) -> int | None:
    limit = _integer("limit", value, -1)
    return None if limit == -1 else limit


def _integer(name: str, value: Any, minimum: int) -> int:
    number = _as_integer(value)
    if number is None or not minimum <= number <= MAX_SAFE_INTEGER:
        raise QueryError(f'"{name}" must be an integer from {minimum} to {MAX_SAFE_INTEGER}.')
    return number


def _as_integer(value: Any) -> int | None:
    """An integer from a JSON number or a query-string text, or None."""
    if isinstance(value, str):
        return int(value) if _INTEGER_TEXT.fullmatch(value) else None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- Dynamic variables ------------------------------------------------------------------


@dataclass(frozen=True)
class VariableContext:
    """Who asks and when: the values of the dynamic variables."""

    user_id: str | None
    role_id: str | None
    #: The role and its ancestors.
    roles: tuple[str, ...]
    policies: tuple[str, ...]
    now: datetime


_NOW_ADJUSTMENT = re.compile(r"\$NOW\(\s*([+-]?)\s*(\d{1,12})\s*([A-Za-z]*)\s*\)")
_VARIABLE_PATH = re.compile(r"\$CURRENT_(USER|ROLES?|POLICIES)\.")
_VARIABLES = frozenset(
    {"$CURRENT_USER", "$CURRENT_ROLE", "$CURRENT_ROLES", "$CURRENT_POLICIES", "$NOW"}
)
_UNITS: Mapping[str, str] = {
    **dict.fromkeys(("milliseconds", "millisecond", "msecs", "msec", "ms"), "ms"),
    **dict.fromkeys(("seconds", "second", "secs", "sec", "s"), "s"),
    **dict.fromkeys(("minutes", "minute", "mins", "min", "m"), "m"),
    **dict.fromkeys(("hours", "hour", "hrs", "hr", "h"), "h"),
    **dict.fromkeys(("days", "day", "d", ""), "d"),
    **dict.fromkeys(("weeks", "week", "w"), "w"),
    **dict.fromkeys(("months", "month", "mth", "mo"), "mo"),
    **dict.fromkeys(("years", "year", "yrs", "yr", "y"), "y"),
}
_DURATIONS: Mapping[str, timedelta] = {
    "ms": timedelta(milliseconds=1),
    "s": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}


def resolve_variables(filter: Filter, context: VariableContext) -> Filter:
    """The filter with `$CURRENT_USER`, `$CURRENT_ROLE`, `$CURRENT_ROLES`,
    `$CURRENT_POLICIES`, `$NOW` and `$NOW(<adjustment>)` replaced by their values.

    `validate` leaves variables in place, so resolving may come before or after it;
    `ItemReader` validates again what it is given, and refuses variables left unresolved.
    `$NOW` becomes the stored date-time text. Field paths behind a variable
    (`$CURRENT_USER.role`) are not supported and raise QueryError.
    """
    match filter:
        case And(items):
            return And(tuple(resolve_variables(item, context) for item in items))
        case Or(items):
            return Or(tuple(resolve_variables(item, context) for item in items))
        case Related():
            return replace(filter, filter=resolve_variables(filter.filter, context))
        case Condition():
            return replace(filter, value=resolve_value(filter.value, context))


def resolve_value(value: Any, context: VariableContext) -> Any:
    """A value with its dynamic variables replaced (presets, filter values)."""
    if isinstance(value, str):
        return _resolve_text(value, context)
    if isinstance(value, list | tuple):
        # A list-valued variable inside a list adds its items, as Directus does.
        resolved: list[Any] = []
        for item in value:
            item_value = _resolve_text(item, context) if isinstance(item, str) else item
            resolved.extend(item_value if isinstance(item_value, list) else [item_value])
        return resolved
    return value


def _resolve_text(text: str, context: VariableContext) -> Any:
    if not is_variable(text):
        return text
    if text == "$NOW":
        return format_datetime(context.now)
    if text.startswith("$NOW("):
        amount, unit = _adjustment(text)
        return format_datetime(_adjusted(context.now, amount, unit, text))
    values: dict[str, Any] = {
        "$CURRENT_USER": context.user_id,
        "$CURRENT_ROLE": context.role_id,
        "$CURRENT_ROLES": list(context.roles),
        "$CURRENT_POLICIES": list(context.policies),
    }
    return values[text]


def is_variable(value: Any) -> bool:
    """Whether `value` is a dynamic variable; a malformed or unsupported one (`$NOW(x)`,
    `$CURRENT_USER.role`) raises QueryError."""
    if not isinstance(value, str) or not value.startswith("$"):
        return False
    if value in _VARIABLES:
        return True
    if _VARIABLE_PATH.match(value):
        raise QueryError(f'Dynamic variables with a field path ("{value}") are not supported.')
    if value.startswith("$NOW("):
        _adjustment(value)
        return True
    return False


def _adjustment(text: str) -> tuple[int, str]:
    """The signed amount and unit of `$NOW(<adjustment>)`; days when no unit is given."""
    match = _NOW_ADJUSTMENT.fullmatch(text)
    unit = _UNITS.get(match.group(3).lower()) if match else None
    if match is None or unit is None:
        raise QueryError(f'Invalid dynamic variable "{text}": use e.g. $NOW(-1 year).')
    return int(match.group(2)) * (-1 if match.group(1) == "-" else 1), unit


def _adjusted(now: datetime, amount: int, unit: str, text: str) -> datetime:
    try:
        if unit in ("mo", "y"):
            return _add_months(now, amount * (12 if unit == "y" else 1))
        return now + amount * _DURATIONS[unit]
    except (OverflowError, ValueError) as exc:
        raise QueryError(f'"{text}" is out of the range of dates.') from exc


def _add_months(moment: datetime, months: int) -> datetime:
    """Calendar months later (or earlier); a day past the month's end becomes its last day."""
    year, month_index = divmod(moment.year * 12 + moment.month - 1 + months, 12)
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    day = min(moment.day, calendar.monthrange(year, month_index + 1)[1])
    return moment.replace(year=year, month=month_index + 1, day=day)


def format_datetime(moment: datetime) -> str:
    """A date-time as the tables hold it: UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ` (naive = UTC)."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )


# --- Validation -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    schema: Schema
    allowed: Mapping[str, frozenset[str]] | None
    purpose: Purpose


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
    """
    rules = _Rules(schema, allowed_fields, purpose)
    if not isinstance(target, ItemQuery):
        return _validate_filter(target, collection, rules, 0)
    select(target.fields, collection, schema, allowed_fields)
    for path, _ in target.sort:
        _validate_sort(path, collection, rules)
    if target.filter is None:
        return target
    return replace(target, filter=_validate_filter(target.filter, collection, rules, 0))


def _validate_filter(node: Filter, collection: Collection, rules: _Rules, depth: int) -> Filter:
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
    condition: Condition, collection: Collection, rules: _Rules, depth: int
) -> Filter:
    path = condition.path
    _check_path(path, depth)
    current = collection
    for index, name in enumerate(path[:-1]):
        member = _member(current, name, rules)
        if isinstance(member, Alias):
            inner = Condition(path[index + 1 :], condition.operator, condition.value)
            return _validate_related(Related(path[: index + 1], inner), collection, rules, depth)
        current = _enter(member, current, rules)
    member = _member(current, path[-1], rules)
    if isinstance(member, Alias):
        raise QueryError(
            f'"{member.name}" is a to-many relation: filter on the fields of its items,'
            ' or use "_some" or "_none".'
        )
    op, value = _validate_operator(member, condition.operator, condition.value, rules.purpose)
    return Condition(path, op, value)


def _validate_related(
    related: Related, collection: Collection, rules: _Rules, depth: int
) -> Filter:
    path = related.path
    _check_path(path, depth)
    current = collection
    for index, name in enumerate(path):
        member = _member(current, name, rules)
        if isinstance(member, Alias):
            if index < len(path) - 1:
                inner: Filter = Related(path[index + 1 :], related.filter, related.quantifier)
                return _validate_related(
                    Related(path[: index + 1], inner), collection, rules, depth
                )
            target = _enter(member, current, rules)
            checked = _validate_filter(related.filter, target, rules, depth + len(path))
            return Related(path, checked, related.quantifier or "_some")
        current = _enter(member, current, rules)
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


def _member(collection: Collection, name: str, rules: _Rules) -> Field | Alias:
    """The stored field or alias `name`, if it exists and may be read."""
    member = collection.field(name) or collection.alias(name)
    if member is None or not readable(rules.allowed, collection.name, name):
        raise FieldForbidden(name, collection.name)
    return member


def _follow(member: Field, collection: Collection, schema: Schema) -> Collection:
    if member.relation is None:
        raise QueryError(f'"{member.name}" in collection "{collection.name}" is not a relation.')
    return schema[member.relation]


def _enter(member: Field | Alias, collection: Collection, rules: _Rules) -> Collection:
    """The collection a path crosses into through `member`. With `allowed` given, a
    collection absent from it may not be read at all, so crossing into it is forbidden
    (FieldForbidden on `member`), even where no field of it is named (`rel.*`, an empty
    `_some`/`_none`): otherwise its items would still be counted or tested for."""
    if isinstance(member, Alias):
        target = rules.schema[member.collection]
    else:
        target = _follow(member, collection, rules.schema)
    if rules.allowed is not None and target.name not in rules.allowed:
        raise FieldForbidden(member.name, collection.name)
    return target


def readable(allowed: Mapping[str, frozenset[str]] | None, collection: str, name: str) -> bool:
    """Whether `allowed` (None: everything) lets the caller read `name` of `collection`."""
    if allowed is None:
        return True
    names = allowed.get(collection)
    return names is not None and ("*" in names or name in names)


def _validate_sort(path: str, collection: Collection, rules: _Rules) -> None:
    segments = _segments(path)
    current = collection
    for name in segments[:-1]:
        member = _member(current, name, rules)
        if isinstance(member, Alias):
            raise QueryError(f'Cannot sort by "{path}": "{name}" is a to-many relation.')
        current = _enter(member, current, rules)
    member = _member(current, segments[-1], rules)
    if isinstance(member, Alias):
        raise QueryError(f'Cannot sort by "{path}": "{member.name}" is a to-many relation.')
    if is_concealed(member):
        # The order of secrets would leak them bit by bit.
        raise QueryError(f'Cannot sort by the concealed field "{path}".')


def _segments(path: str) -> list[str]:
    segments = path.split(".")
    if not all(segments):
        raise QueryError(f'Invalid field path "{path}".')
    if any("(" in segment for segment in segments):
        raise QueryError(f'Field functions such as "{path}" are not supported.')
    if len(segments) > MAX_RELATIONAL_DEPTH:
        raise QueryError("Max relational depth exceeded.")
    return segments


def _validate_operator(field: Field, op: str, value: Any, purpose: Purpose) -> tuple[str, Any]:
    if op not in FIELD_OPERATORS:
        raise QueryError(f'Unknown filter operator "{op}".')
    if op in _VALIDATION_ONLY:
        return _validate_validation_operator(field, op, value, purpose)
    if op not in OPERATORS_BY_TYPE[field.type]:
        raise QueryError(f'"{field.type}" field type does not contain the "{op}" filter operator.')
    if field.concealed and op not in _HASH_OPERATORS:
        raise QueryError(f'Field with "conceal" special does not allow the "{op}" filter operator.')
    value = _literal(value)
    if op in _FLAG_OPPOSITES:
        return (op, True) if _flag(op, value) else (_FLAG_OPPOSITES[op], True)
    if op in _LIST_OPERATORS:
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
    if not values and (purpose == "query" or op in _RANGES):
        raise QueryError(f'"{op}" has to be an array of values.')
    if op in _RANGES and len(values) != 2:
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


_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def coerce_value(value: str | int | float | bool, field: Field, op: str = "_eq") -> Any:
    """A filter value cast to the type of `field`, the way the table holds it.

    Numbers from numeric text, date-times to the stored UTC text, UUIDs to lower case,
    anything to text for text fields. Raises QueryError when the value cannot be cast.
    """
    match field.type:
        case FieldType.INTEGER | FieldType.FLOAT:
            return _as_number(value, op)
        case FieldType.BOOLEAN:
            return _as_boolean(value, op)
        case FieldType.DATETIME:
            return _as_datetime(value, op)
        case FieldType.UUID:
            return _as_uuid(_as_text(value))
        case _:
            return _as_text(value)


def check_text(text: str, what: str) -> None:
    """Refuse text no database can store: NUL characters or lone surrogates."""
    if "\x00" in text or _has_surrogate(text):
        raise QueryError(f"{what} contains characters that cannot be stored.")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _as_text(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_uuid(text: str) -> str:
    try:
        return str(uuid.UUID(text))
    except ValueError:
        # Not a UUID, so it matches no stored UUID; still a valid comparison.
        return text


def _as_number(value: str | int | float | bool, op: str) -> int | float:
    if isinstance(value, bool):
        return int(value)
    if not isinstance(value, str):
        return value
    number = parse_number(value)
    if number is None:
        raise QueryError(f'The filter value for "{op}" is not a valid number.')
    return number


def parse_number(text: str) -> int | float | None:
    """The number a text spells (decimal, optional exponent; surrounding blanks allowed),
    or None when it spells none or one beyond the safe integers."""
    text = text.strip()
    if len(text) > 40 or not _NUMBER_TEXT.fullmatch(text):
        return None
    number: int | float = int(text) if text.lstrip("+-").isdigit() else float(text)
    return number if math.isfinite(number) and abs(number) <= MAX_SAFE_INTEGER else None


def _as_boolean(value: str | int | float | bool, op: str) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1, "0", "1"):
        return value in (1, "1")
    raise QueryError(f'The filter value for "{op}" has to be a boolean.')


def _as_datetime(value: str | int | float | bool, op: str) -> str:
    if isinstance(value, str):
        text = value.strip()
        # An unencoded "+" of an offset arrives from a query string as a space.
        if len(text) > 19 and text[-6] == " " and text[-3] == ":":
            text = f"{text[:-6]}+{text[-5:]}"
        try:
            return format_datetime(datetime.fromisoformat(text))
        except (ValueError, OverflowError):
            pass
    raise QueryError(f'The filter value for "{op}" is not a valid date-time.')


@lru_cache(maxsize=256)
def regex_pattern(text: str) -> re.Pattern[str]:
    """The compiled `_regex` value; like Directus, `/.../` slashes around it are dropped."""
    wrapped = len(text) >= 2 and text.startswith("/") and text.endswith("/")
    return re.compile(text[1:-1] if wrapped else text)


# --- Fields -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What the `fields` parameter reads of one collection.

    `keys` are the output keys in order: stored fields, then aliases. A key in `nested`
    is read as the related item(s) with that selection; an alias key that is not nested
    is read as the list of its items' primary keys.
    """

    collection: str
    keys: tuple[str, ...]
    nested: tuple[tuple[str, Selection], ...] = ()

    def child(self, key: str) -> Selection | None:
        """The selection of the items `key` leads to, or None when `key` is read flat."""
        return next((selection for name, selection in self.nested if name == key), None)


@dataclass
class _Node:
    names: set[str] = dataclasses.field(default_factory=set)
    children: dict[str, _Node] = dataclasses.field(default_factory=dict)


class _SelectionBuilder:
    def __init__(self, schema: Schema, allowed: Mapping[str, frozenset[str]] | None) -> None:
        self._rules = _Rules(schema, allowed, "query")
        self._nodes = 0

    def add(self, node: _Node, collection: Collection, segments: list[str], path: str) -> None:
        head, rest = segments[0], segments[1:]
        if head == "*":
            self._add_wildcard(node, collection, rest, path)
            return
        member = _member(collection, head, self._rules)
        if not rest:
            if isinstance(member, Alias):
                target = _enter(member, collection, self._rules)
                _member(target, target.primary_key, self._rules)
            node.names.add(head)
            return
        target = _enter(member, collection, self._rules)
        self.add(self._child(node, head), target, rest, path)

    def _add_wildcard(
        self, node: _Node, collection: Collection, rest: list[str], path: str
    ) -> None:
        if any(segment != "*" for segment in rest):
            raise QueryError(f'Invalid field path "{path}": "*" can only be followed by "*".')
        node.names.update(
            f.name
            for f in collection.fields
            if readable(self._rules.allowed, collection.name, f.name)
        )
        if not rest:
            return
        for name, target in self._relations(collection):
            self.add(self._child(node, name), target, rest, path)

    def _relations(self, collection: Collection) -> list[tuple[str, Collection]]:
        """Relational members the caller may read, leading to a collection they may read."""
        schema, allowed = self._rules.schema, self._rules.allowed
        links = [(f.name, f.relation) for f in collection.fields if f.relation is not None]
        links += [(a.name, a.collection) for a in collection.aliases]
        return [
            (name, schema[target])
            for name, target in links
            if readable(allowed, collection.name, name)
            and any(readable(allowed, target, f.name) for f in schema[target].fields)
        ]

    def _child(self, node: _Node, name: str) -> _Node:
        if name not in node.children:
            self._nodes += 1
            if self._nodes > _MAX_NESTED_SELECTIONS:
                raise QueryError("Too many related fields requested.")
            node.children[name] = _Node()
        return node.children[name]

    def freeze(self, node: _Node, collection: Collection) -> Selection:
        names = node.names | node.children.keys()
        keys = [f.name for f in collection.fields if f.name in names]
        keys += [a.name for a in collection.aliases if a.name in names]
        nested = []
        for key in keys:
            child = node.children.get(key)
            if child is not None:
                target = _related_collection(collection, key, self._rules.schema)
                nested.append((key, self.freeze(child, target)))
        return Selection(collection.name, tuple(keys), tuple(nested))


def _related_collection(collection: Collection, name: str, schema: Schema) -> Collection:
    link = collection.alias(name)
    if link is not None:
        return schema[link.collection]
    member = collection.field(name)
    if member is None:
        raise FieldForbidden(name, collection.name)
    return _follow(member, collection, schema)


def select(
    fields: Sequence[str],
    collection: Collection,
    schema: Schema,
    allowed_fields: Mapping[str, frozenset[str]] | None = None,
) -> Selection:
    """What `fields` reads: `*` is every readable stored field, `*.*` adds one level of
    relations (aliases included), `rel.*` / `rel.field` nest the related item(s), and a
    bare alias reads its items' keys. Naming a missing or unreadable field raises
    FieldForbidden; `*` skips what may not be read.

    With `allowed_fields` given, a collection absent from it cannot be read at all:
    `rel.*`, `rel.field` or a bare alias into it raise FieldForbidden on `rel`, and `*.*`
    does not expand into it (nor into one of whose fields none is readable): a
    many-to-one field there stays its bare key, as `*` reads it when the field itself is
    readable, and a to-many alias is left out.
    """
    builder = _SelectionBuilder(schema, allowed_fields)
    root = _Node()
    for path in fields:
        builder.add(root, collection, _segments(path), path)
    return builder.freeze(root, collection)


# --- Evaluation in Python ---------------------------------------------------------------


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
    if op in _FLAG_OPPOSITES:
        empty = raw is None or (op in ("_empty", "_nempty") and raw == "")
        return empty if op in ("_null", "_empty") else not empty
    if raw is None:
        return False
    if op == "_regex":
        return isinstance(raw, str) and regex_pattern(target).search(raw) is not None
    value = _item_value(raw, field)
    if value is _INCOMPARABLE:
        return False
    try:
        return _compare(op, value, target)
    except TypeError:
        return False


def _compare(op: str, value: Any, target: Any) -> bool:
    if op in _COMPARISONS:
        return _COMPARISONS[op](value, target)
    if op in ("_in", "_nin"):
        return (value in target) == (op == "_in")
    if op in _RANGES:
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
