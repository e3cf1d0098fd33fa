"""The pieces every item-query compiler shares: SQL fragments, rule joins, parameters."""

from collections.abc import Mapping
from typing import Any

from domain.collections.filters import Filter
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field
from domain.collections.variables import is_variable

Items = list[dict[str, Any]]
Keys = list[Any]
AllowedFields = Mapping[str, frozenset[str]]
Rules = Mapping[str, Filter]
#: A SQL fragment with `?` placeholders, and its parameters.
Sql = tuple[str, list[Any]]


def link_condition(link: Alias, alias: str) -> str:
    """SQL keeping the related rows (aliased `alias`) that belong to this relation."""
    return f' AND {alias}."{link.requires}" IS NOT NULL' if link.requires else ""


def and_rule(sql: str, params: list[Any], rule: Sql | None) -> Sql:
    """`sql AND rule` (parameters in that order), or `sql` alone without a rule."""
    if rule is None:
        return sql, params
    return f"{sql} AND {rule[0]}", [*params, *rule[1]]


def param(value: Any) -> Any:
    """A validated value as a statement parameter (booleans are stored as 0/1)."""
    if is_variable(value):
        raise QueryError(f'The dynamic variable "{value}" was not resolved.')
    return int(value) if isinstance(value, bool) else value


def escape_like(text: str) -> str:
    """Text matched literally inside a LIKE pattern (with `ESCAPE '\\'`)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def field_of(collection: Collection, name: str) -> Field:
    """The field `name` of the collection; FieldForbidden where it has none."""
    field = collection.field(name)
    if field is None:
        raise FieldForbidden(name, collection.name)
    return field
