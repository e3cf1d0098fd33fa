"""The ORDER BY of a list read: sort paths, across many-to-one relations, and the key."""

import itertools
from collections.abc import Iterator
from typing import Any

from domain.collections.paths import readable
from domain.collections.query_errors import QueryError
from domain.collections.schema import Collection, Schema
from projections.items.filters import RuleBook
from projections.items.sql import AllowedFields, Sql, and_rule, field_of


def order_by(
    schema: Schema,
    collection: Collection,
    sort: tuple[tuple[str, bool], ...],
    allowed_fields: AllowedFields | None,
    rules: RuleBook,
) -> Sql:
    """The ORDER BY terms of a list read: the sort asked for (by default the collection's
    sort field, where the caller may read it), then the primary key."""
    if not sort and readable(allowed_fields, collection.name, collection.sort_field):
        sort = ((collection.sort_field, False),)
    counter = itertools.count(1)
    terms: list[str] = []
    params: list[Any] = []
    for path, descending in sort:
        sql, term_params = _sort_expression(
            schema, collection, path.split("."), "t", counter, rules
        )
        terms.append(sql + (" DESC NULLS LAST" if descending else " ASC NULLS FIRST"))
        params += term_params
    # The key breaks ties, so pages never overlap or skip.
    terms.append(f't."{collection.primary_key}" ASC')
    return ", ".join(terms), params


def _sort_expression(
    schema: Schema,
    collection: Collection,
    segments: list[str],
    alias: str,
    counter: Iterator[int],
    rules: RuleBook,
) -> Sql:
    """The column to sort by; a many-to-one path reads it with a scalar subquery, which
    gives NULL where the related item is missing or fails its rule (Directus's left join
    on what the caller may see)."""
    if len(segments) == 1:
        return f'{alias}."{segments[0]}"', []
    field = field_of(collection, segments[0])
    if field.relation is None:
        raise QueryError(f'"{field.name}" in collection "{collection.name}" is not a relation.')
    target = schema[field.relation]
    sub = f"s_{next(counter)}"
    inner, params = _sort_expression(schema, target, segments[1:], sub, counter, rules)
    where, params = and_rule(
        f'{sub}."{target.primary_key}" = {alias}."{field.name}"',
        params,
        rules.condition(target, sub),
    )
    return f'(SELECT {inner} FROM "{target.table}" AS {sub} WHERE {where})', params
