"""`ItemQuery`, the global query parameters of a list request, read from a URL query
string (`parse_query`) or a SEARCH body (`query_from_object`)."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from domain.collections.coercion import MAX_SAFE_INTEGER, check_text
from domain.collections.filters import MAX_NESTING, Filter, parse_filter
from domain.collections.query_errors import QueryError

#: The counts the `meta` parameter can ask for.
META_COUNTS = frozenset({"total_count", "filter_count"})

#: The functions of the `aggregate` parameter (Directus's names; `countAll` is GraphQL's
#: in Directus and is taken here too).
AGGREGATE_FUNCTIONS = frozenset(
    {"count", "countDistinct", "countAll", "sum", "sumDistinct", "avg", "avgDistinct", "min", "max"}
)

#: Directus parameters this service does not implement: refused rather than ignored,
#: because ignoring them would answer a different question than the one asked.
_UNSUPPORTED_PARAMETERS = frozenset({"deep", "alias"})


class Aggregate(NamedTuple):
    """One aggregate of a query: a function of `aggregate` and a field it applies to.

    `field` is "*" for `count` of the items (`aggregate[count]=*`) and for `countAll`.
    """

    function: str
    field: str

    @property
    def name(self) -> str:
        """How a sort names it: `count` for count(*), else `function.field` (`sum.quantity`)."""
        return self.function if self.field == "*" else f"{self.function}.{self.field}"


@dataclass(frozen=True)
class ItemQuery:
    """A list query: which fields, which items, in which order, which page, which counts.

    `limit` None reads every item (the parameter's -1); `parse_query` applies the default.
    `sort` holds (dotted path, descending) pairs, earlier ones first. With `aggregate` or
    `group_by` the query answers one row per group instead of items (`fields` is then
    ignored); `sort` then names group fields or aggregates (`count`, `sum.quantity`).
    """

    fields: tuple[str, ...] = ("*",)
    filter: Filter | None = None
    search: str | None = None
    sort: tuple[tuple[str, bool], ...] = ()
    limit: int | None = None
    offset: int = 0
    meta: frozenset[str] = dataclasses.field(default_factory=frozenset)
    aggregate: tuple[Aggregate, ...] = ()
    group_by: tuple[str, ...] = ()

    @property
    def aggregating(self) -> bool:
        """Whether the query asks for aggregates or groups rather than items."""
        return bool(self.aggregate or self.group_by)


_LIST_PARAMETERS = ("fields", "sort", "meta", "groupBy")
_SCALAR_PARAMETERS = ("search", "limit", "offset", "page")
_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])*)")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_INTEGER_TEXT = re.compile(r"\s*[+-]?[0-9]{1,20}\s*")


def parse_query(params: Iterable[tuple[str, str]], *, default_limit: int | None = 100) -> ItemQuery:
    """An item query from URL query parameters, in order; repeated keys are kept.

    `filter` comes as JSON or in bracket form (`filter[title][_eq]=x`), `aggregate` too
    (`aggregate[sum]=a,b`, `aggregate={"count": ["*"]}`); `fields`, `sort`, `meta` and
    `groupBy` as CSV and/or arrays (`fields[]=a`). Other parameters (`access_token`,
    `export`, ...) are ignored here, except the unsupported `deep` and `alias`, which are
    refused.
    """
    lists: dict[str, list[str]] = {name: [] for name in _LIST_PARAMETERS}
    scalars: dict[str, str] = {}
    filter_json: list[str] = []
    filter_brackets: list[tuple[list[str], str]] = []
    aggregate_json: list[str] = []
    aggregate_brackets: dict[str, list[str]] = {}
    for key, value in params:
        if not isinstance(key, str) or not isinstance(value, str):
            raise QueryError("Query parameter names and values must be text.")
        name, segments = _split_key(key)
        if name == "filter":
            if segments:
                filter_brackets.append((segments, value))
            else:
                filter_json.append(value)
        elif name == "aggregate":
            if not segments:
                aggregate_json.append(value)
            elif (
                len(segments) > 2
                or not segments[0]
                or (len(segments) == 2 and not (segments[1] == "" or segments[1].isdecimal()))
            ):
                raise QueryError(f'Malformed query parameter "{key}".')
            else:
                aggregate_brackets.setdefault(segments[0], []).append(value)
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
        aggregate=_url_aggregate(aggregate_json, aggregate_brackets),
        group_by=lists["groupBy"],
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
        aggregate=_object_aggregate(obj.get("aggregate")),
        group_by=_texts("groupBy", obj.get("groupBy")),
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
    aggregate: tuple[Aggregate, ...],
    group_by: Sequence[str],
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
        aggregate=aggregate,
        group_by=tuple(dict.fromkeys(_csv(group_by))),
    )


def _search(term: str | None) -> str | None:
    if term:
        check_text(term, '"search"')
    return term or None


def _split_key(key: str) -> tuple[str, list[str]]:
    match = _KEY.fullmatch(key)
    if match is None:
        name = key.split("[", 1)[0]
        if (
            name in ("filter", "aggregate")
            or name in _LIST_PARAMETERS
            or name in _SCALAR_PARAMETERS
        ):
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


def _url_aggregate(json_values: list[str], brackets: dict[str, list[str]]) -> tuple[Aggregate, ...]:
    if (json_values and brackets) or len(json_values) > 1:
        raise QueryError("Give the aggregate once: as JSON or in bracket form.")
    if json_values:
        return _object_aggregate(json_values[0] or None)
    return _aggregates(brackets)


def _object_aggregate(value: Any) -> tuple[Aggregate, ...]:
    """The aggregates of an `aggregate` object (or its JSON text): function -> fields."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise QueryError("Invalid JSON for aggregate object.") from exc
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise QueryError('"aggregate" must be an object of functions and fields.')
    return _aggregates(
        {str(name): _texts(f"aggregate.{name}", fields) for name, fields in value.items()}
    )


def _aggregates(functions: Mapping[str, Sequence[str]]) -> tuple[Aggregate, ...]:
    found: list[Aggregate] = []
    for function, values in functions.items():
        if function not in AGGREGATE_FUNCTIONS:
            raise QueryError(f'Unknown aggregate function "{function}".')
        fields = _csv(values)
        if function == "countAll":
            # It counts the items; a field named with it changes nothing.
            found.append(Aggregate(function, "*"))
            continue
        if not fields:
            raise QueryError(f'"aggregate[{function}]" needs a field.')
        found.extend(Aggregate(function, field) for field in fields)
    return tuple(dict.fromkeys(found))


def _bracket_object(entries: list[tuple[list[str], str]]) -> Any:
    """The nested object that bracket-form keys describe, the way `qs` builds it."""
    root: dict[str, Any] = {}
    for segments, value in entries:
        if len(segments) > MAX_NESTING:
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
