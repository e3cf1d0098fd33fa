"""The `deep` and `alias` parameters: how the related items of each relation are read
(their filter, search, sort and page), and output keys that read another field."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from domain.collections.filters import Filter, parse_filter
from domain.collections.paths import MAX_RELATIONAL_DEPTH
from domain.collections.query_errors import QueryError
from domain.collections.query_values import (
    csv,
    decode_json,
    integer,
    limit_value,
    page_offset,
    search_term,
    sort_term,
    texts,
)

#: Related items a to-many relation reads where `deep` sets no `_limit`: Directus's
#: QUERY_LIMIT_DEFAULT, which it applies to nested relations too.
NESTED_DEFAULT_LIMIT = 100

#: The query parameters a `deep` entry takes, `_`-prefixed.
_DEEP_PARAMETERS = frozenset(
    {"_filter", "_search", "_sort", "_limit", "_offset", "_page", "_alias"}
)
#: Named apart: Directus refuses them too (`fields` comes from `fields`; nest by key).
_NOT_IN_DEEP = frozenset({"_fields", "_deep"})

Aliases = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class NestedQuery:
    """How the related items of one relation are read: `deep[relation]`.

    `limit` None reads them all (`_limit=-1`); limit and offset count per parent item.
    `alias` names output keys of the related items, `deep` the relations they lead to.
    """

    filter: Filter | None = None
    search: str | None = None
    sort: tuple[tuple[str, bool], ...] = ()
    limit: int | None = NESTED_DEFAULT_LIMIT
    offset: int = 0
    alias: Aliases = ()
    deep: tuple[tuple[str, NestedQuery], ...] = ()


Deep = tuple[tuple[str, NestedQuery], ...]


def parse_deep(value: Any) -> Deep:
    """The relations of a `deep` object (or its JSON text): relation -> `_`-parameters,
    with nested relations by key, as in `{"translations": {"_filter": {...}}}`."""
    if isinstance(value, str):
        value = decode_json(value, "deep") if value else None
    if value is None:
        return ()
    return _relations(value, "deep", 0)


def parse_alias(value: Any, name: str = "alias") -> Aliases:
    """The aliases of an `alias` object (or its JSON text): output key -> field name, both
    plain names (no "." and no function)."""
    if isinstance(value, str):
        value = decode_json(value, "alias") if value else None
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise QueryError(f'"{name}" must be an object of aliases and field names.')
    aliases = []
    for key, field in value.items():
        if not (isinstance(key, str) and isinstance(field, str)) or "." in key + field:
            raise QueryError(f'"{name}" keys and values must be strings without ".".')
        if not key or not field:
            raise QueryError(f'"{name}" keys and values must not be empty.')
        if "(" in field:
            raise QueryError(f'Field functions such as "{field}" are not supported.')
        aliases.append((key, field))
    return tuple(aliases)


def with_filters(deep: Deep, change: Callable[[Filter], Filter]) -> Deep:
    """`deep` with `change` applied to every filter in it, at every level."""
    return tuple(
        (
            name,
            replace(
                nested,
                filter=None if nested.filter is None else change(nested.filter),
                deep=with_filters(nested.deep, change),
            ),
        )
        for name, nested in deep
    )


def _relations(value: Any, path: str, depth: int) -> Deep:
    if not isinstance(value, Mapping):
        raise QueryError(f'"{path}" must be an object of relations.')
    if depth >= MAX_RELATIONAL_DEPTH:
        raise QueryError("Max relational depth exceeded.")
    found = []
    for key, entry in value.items():
        if not isinstance(key, str) or not key or key.startswith("_") or "." in key:
            raise QueryError(f'"{path}" takes relation names, not "{key}".')
        found.append((key, _nested(entry, f"{path}.{key}", depth + 1)))
    return tuple(found)


def _nested(value: Any, path: str, depth: int) -> NestedQuery:
    if not isinstance(value, Mapping):
        raise QueryError(f'"{path}" must be an object.')
    parameters: dict[str, Any] = {}
    relations: dict[str, Any] = {}
    for key, entry in value.items():
        if not isinstance(key, str):
            raise QueryError(f'"{path}" takes names only.')
        if key in _NOT_IN_DEEP:
            raise QueryError(
                f'"{key}" is not allowed in "deep": fields come from "fields", and nested'
                " relations go by their name."
            )
        if key.startswith("_"):
            if key not in _DEEP_PARAMETERS:
                raise QueryError(f'Unknown "deep" parameter "{key}" in "{path}".')
            parameters[key] = entry
        else:
            relations[key] = entry
    limit = (
        NESTED_DEFAULT_LIMIT
        if parameters.get("_limit") is None
        else limit_value(parameters["_limit"], f"{path}._limit")
    )
    offset = _optional_integer(parameters.get("_offset"), f"{path}._offset")
    page = _optional_integer(parameters.get("_page"), f"{path}._page")
    return NestedQuery(
        filter=_filter(parameters.get("_filter")),
        search=search_term(parameters.get("_search"), f"{path}._search"),
        sort=tuple(
            sort_term(term) for term in csv(texts(f"{path}._sort", parameters.get("_sort")))
        ),
        limit=limit,
        offset=page_offset(limit, offset, page),
        alias=parse_alias(parameters.get("_alias"), f"{path}._alias"),
        deep=_relations(relations, path, depth) if relations else (),
    )


def _filter(value: Any) -> Filter | None:
    if isinstance(value, str):
        value = decode_json(value, "filter") if value else None
    return None if value is None else parse_filter(value)


def _optional_integer(value: Any, name: str) -> int:
    return 0 if value is None else integer(name, value, 0)
