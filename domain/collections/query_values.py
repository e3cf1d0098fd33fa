"""The values of query parameters, as the URL and SEARCH bodies give them: texts, CSV
lists, integers, sort terms, JSON text and the nested objects of bracket keys."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from domain.collections.coercion import MAX_SAFE_INTEGER, check_text
from domain.collections.filters import MAX_NESTING
from domain.collections.query_errors import QueryError

_INTEGER_TEXT = re.compile(r"\s*[+-]?[0-9]{1,20}\s*")


def decode_json(text: str, name: str) -> Any:
    """The value of a parameter given as JSON text; QueryError naming it when malformed."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise QueryError(f"Invalid JSON for {name} object.") from exc


def bracket_object(entries: list[tuple[list[str], str]], name: str = "filter") -> Any:
    """The nested object that bracket-form keys of parameter `name` describe
    (`filter[a][_eq]=x`), the way `qs` builds it."""
    root: dict[str, Any] = {}
    for segments, value in entries:
        if len(segments) > MAX_NESTING:
            raise QueryError(f"The {name} is nested too deeply.")
        append = segments[-1] == ""
        path = segments[:-1] if append else segments
        if not path or "" in path:
            raise QueryError(f"Malformed {name} parameter.")
        node = root
        for segment in path[:-1]:
            child = node.setdefault(segment, {})
            if not isinstance(child, dict):
                raise QueryError(f'Conflicting {name} parameters at "{segment}".')
            node = child
        existing = node.get(path[-1])
        if existing is None:
            node[path[-1]] = [value] if append else value
        elif isinstance(existing, list):
            existing.append(value)
        elif isinstance(existing, str):
            node[path[-1]] = [existing, value]
        else:
            raise QueryError(f'Conflicting {name} parameters at "{path[-1]}".')
    return _with_arrays(root)


def _with_arrays(value: Any) -> Any:
    """Objects keyed 0, 1, ... become arrays, as `qs` (and Directus after it) reads them."""
    if not isinstance(value, dict):
        return value
    items = {key: _with_arrays(item) for key, item in value.items()}
    if items and all(key.isdecimal() for key in items):
        return [items[key] for key in sorted(items, key=int)]
    return items


def texts(name: str, value: Any) -> list[str]:
    """A parameter that takes a string or an array of strings, as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return list(value)
    raise QueryError(f'"{name}" must be a string or an array of strings.')


def csv(values: Iterable[str]) -> list[str]:
    """The items of CSV texts, trimmed, empty ones left out."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def sort_term(term: str) -> tuple[str, bool]:
    """A sort term as (path, descending): `-name` sorts by name, descending."""
    descending = term.startswith("-")
    path = term[1:] if descending else term
    if not path:
        raise QueryError(f'Invalid sort field "{term}".')
    return path, descending


def search_term(term: Any, name: str = "search") -> str | None:
    """A search term; None when empty."""
    if term is not None and not isinstance(term, str):
        raise QueryError(f'"{name}" must be a string.')
    if term:
        check_text(term, f'"{name}"')
    return term or None


def limit_value(value: Any, name: str = "limit") -> int | None:
    """A limit; None for -1 (everything)."""
    limit = integer(name, value, -1)
    return None if limit == -1 else limit


def integer(name: str, value: Any, minimum: int) -> int:
    """An integer parameter from `minimum` to the largest safe integer."""
    number = _as_integer(value)
    if number is None or not minimum <= number <= MAX_SAFE_INTEGER:
        raise QueryError(f'"{name}" must be an integer from {minimum} to {MAX_SAFE_INTEGER}.')
    return number


def page_offset(limit: int | None, offset: int, page: int) -> int:
    """The offset a page stands for: page wins over offset; page 0 is ignored (Directus's
    check is "if page"), and so is any page without a limit."""
    if page > 0 and limit is not None:
        offset = limit * (page - 1)
        if offset > MAX_SAFE_INTEGER:
            raise QueryError('"page" is too large.')
    return offset


def _as_integer(value: Any) -> int | None:
    """An integer from a JSON number or a query-string text, or None."""
    if isinstance(value, str):
        return int(value) if _INTEGER_TEXT.fullmatch(value) else None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
