"""`ItemQuery`, the global query parameters of a list request, read from a URL query
string (`parse_query`) or a SEARCH body (`query_from_object`)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from domain.collections.deep import Aliases, Deep, parse_alias, parse_deep
from domain.collections.filters import Filter, parse_filter
from domain.collections.query_errors import QueryError
from domain.collections.query_values import (
    bracket_object,
    csv,
    decode_json,
    integer,
    limit_value,
    page_offset,
    search_term,
    sort_term,
    texts,
)

#: The counts the `meta` parameter can ask for.
META_COUNTS = frozenset({"total_count", "filter_count"})

#: The functions of the `aggregate` parameter (Directus's names; `countAll` is GraphQL's
#: in Directus and is taken here too).
AGGREGATE_FUNCTIONS = frozenset(
    {"count", "countDistinct", "countAll", "sum", "sumDistinct", "avg", "avgDistinct", "min", "max"}
)

#: The file formats of the `export` parameter (`csv_utf8`: CSV with a byte-order mark, for
#: spreadsheets; Directus 11.17).
EXPORT_FORMATS = ("csv", "csv_utf8", "json", "xml", "yaml")


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
    `alias` names output keys that read another field, `deep` how the items of each
    relation read are chosen; `export` the file format the answer is wanted in.
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
    alias: Aliases = ()
    deep: Deep = ()
    export: str | None = None

    @property
    def aggregating(self) -> bool:
        """Whether the query asks for aggregates or groups rather than items."""
        return bool(self.aggregate or self.group_by)


_LIST_PARAMETERS = ("fields", "sort", "meta", "groupBy")
_SCALAR_PARAMETERS = ("search", "limit", "offset", "page", "export")
#: Parameters that take an object, as JSON text or in bracket form.
_OBJECT_PARAMETERS = ("filter", "deep", "alias")
_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])*)")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def parse_query(params: Iterable[tuple[str, str]], *, default_limit: int | None = 100) -> ItemQuery:
    """An item query from URL query parameters, in order; repeated keys are kept.

    `filter`, `deep` and `alias` come as JSON or in bracket form (`filter[title][_eq]=x`),
    `aggregate` too (`aggregate[sum]=a,b`, `aggregate={"count": ["*"]}`); `fields`,
    `sort`, `meta` and `groupBy` as CSV and/or arrays (`fields[]=a`). Other parameters
    (`access_token`, ...) are ignored here.
    """
    lists: dict[str, list[str]] = {name: [] for name in _LIST_PARAMETERS}
    scalars: dict[str, str] = {}
    objects: dict[str, tuple[list[str], list[tuple[list[str], str]]]] = {
        name: ([], []) for name in _OBJECT_PARAMETERS
    }
    aggregate_json: list[str] = []
    aggregate_brackets: dict[str, list[str]] = {}
    for key, value in params:
        if not isinstance(key, str) or not isinstance(value, str):
            raise QueryError("Query parameter names and values must be text.")
        name, segments = _split_key(key)
        if name in objects:
            json_values, brackets = objects[name]
            if segments:
                brackets.append((segments, value))
            else:
                json_values.append(value)
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
    filter_value = _url_object("filter", *objects["filter"])
    return _build_query(
        fields=lists["fields"],
        filter=None if filter_value is None else parse_filter(filter_value),
        search=scalars.get("search"),
        sort=lists["sort"],
        limit=scalars.get("limit"),
        offset=scalars.get("offset"),
        page=scalars.get("page"),
        meta=lists["meta"],
        aggregate=_url_aggregate(aggregate_json, aggregate_brackets),
        group_by=lists["groupBy"],
        alias=parse_alias(_url_object("alias", *objects["alias"])),
        deep=parse_deep(_url_object("deep", *objects["deep"])),
        export=scalars.get("export"),
        default_limit=default_limit,
    )


def query_from_object(obj: Any, *, default_limit: int | None = 100) -> ItemQuery:
    """An item query from the `query` object of a SEARCH body: the URL parameters as JSON."""
    if not isinstance(obj, Mapping):
        raise QueryError("The query must be an object.")
    for key in obj:
        if not isinstance(key, str):
            raise QueryError("Query keys must be strings.")
    filter_value = obj.get("filter")
    if isinstance(filter_value, str):
        filter_value = decode_json(filter_value, "filter")
    return _build_query(
        fields=texts("fields", obj.get("fields")),
        filter=None if filter_value is None else parse_filter(filter_value),
        search=obj.get("search"),
        sort=texts("sort", obj.get("sort")),
        limit=obj.get("limit"),
        offset=obj.get("offset"),
        page=obj.get("page"),
        meta=texts("meta", obj.get("meta")),
        aggregate=_object_aggregate(obj.get("aggregate")),
        group_by=texts("groupBy", obj.get("groupBy")),
        alias=parse_alias(obj.get("alias")),
        deep=parse_deep(obj.get("deep")),
        export=obj.get("export"),
        default_limit=default_limit,
    )


def _build_query(
    *,
    fields: Sequence[str],
    filter: Filter | None,
    search: Any,
    sort: Sequence[str],
    limit: Any,
    offset: Any,
    page: Any,
    meta: Sequence[str],
    aggregate: tuple[Aggregate, ...],
    group_by: Sequence[str],
    alias: Aliases,
    deep: Deep,
    export: Any,
    default_limit: int | None,
) -> ItemQuery:
    limit_number = default_limit if limit is None else limit_value(limit)
    offset_number = 0 if offset is None else integer("offset", offset, 0)
    page_number = 0 if page is None else integer("page", page, 0)
    return ItemQuery(
        fields=tuple(csv(fields)) or ("*",),
        filter=filter,
        search=search_term(search),
        sort=tuple(sort_term(term) for term in csv(sort)),
        limit=limit_number,
        offset=page_offset(limit_number, offset_number, page_number),
        meta=_meta(csv(meta)),
        aggregate=aggregate,
        group_by=tuple(dict.fromkeys(csv(group_by))),
        alias=alias,
        deep=deep,
        export=_export(export),
    )


def _export(value: Any) -> str | None:
    if value is None:
        return None
    if value not in EXPORT_FORMATS:
        raise QueryError(f'"export" must be one of {", ".join(EXPORT_FORMATS)}.')
    return str(value)


def _split_key(key: str) -> tuple[str, list[str]]:
    match = _KEY.fullmatch(key)
    if match is None:
        name = key.split("[", 1)[0]
        if (
            name in _OBJECT_PARAMETERS
            or name == "aggregate"
            or name in _LIST_PARAMETERS
            or name in _SCALAR_PARAMETERS
        ):
            raise QueryError(f'Malformed query parameter "{key}".')
        return key, []
    return match.group(1), _BRACKET.findall(match.group(2))


def _url_object(name: str, json_values: list[str], brackets: list[tuple[list[str], str]]) -> Any:
    """The object a parameter gives as JSON text or in bracket form (not both)."""
    if (json_values and brackets) or len(json_values) > 1:
        raise QueryError(f"Give the {name} once: as JSON or in bracket form.")
    if brackets:
        return bracket_object(brackets, name)
    if not json_values or not json_values[0]:
        return None
    return decode_json(json_values[0], name)


def _url_aggregate(json_values: list[str], brackets: dict[str, list[str]]) -> tuple[Aggregate, ...]:
    if (json_values and brackets) or len(json_values) > 1:
        raise QueryError("Give the aggregate once: as JSON or in bracket form.")
    if json_values:
        return _object_aggregate(json_values[0] or None)
    return _aggregates(brackets)


def _object_aggregate(value: Any) -> tuple[Aggregate, ...]:
    """The aggregates of an `aggregate` object (or its JSON text): function -> fields."""
    if isinstance(value, str):
        value = decode_json(value, "aggregate")
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise QueryError('"aggregate" must be an object of functions and fields.')
    return _aggregates(
        {str(name): texts(f"aggregate.{name}", fields) for name, fields in value.items()}
    )


def _aggregates(functions: Mapping[str, Sequence[str]]) -> tuple[Aggregate, ...]:
    found: list[Aggregate] = []
    for function, values in functions.items():
        if function not in AGGREGATE_FUNCTIONS:
            raise QueryError(f'Unknown aggregate function "{function}".')
        fields = csv(values)
        if function == "countAll":
            # It counts the items; a field named with it changes nothing.
            found.append(Aggregate(function, "*"))
            continue
        if not fields:
            raise QueryError(f'"aggregate[{function}]" needs a field.')
        found.extend(Aggregate(function, field) for field in fields)
    return tuple(dict.fromkeys(found))


def _meta(values: list[str]) -> frozenset[str]:
    if "*" in values:
        return META_COUNTS
    unknown = [value for value in values if value not in META_COUNTS]
    if unknown:
        raise QueryError(f'"meta" must be total_count, filter_count or *, not "{unknown[0]}".')
    return frozenset(values)
