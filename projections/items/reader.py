"""Directus-style item queries as SQL over the platform collections' read-model tables.

One compiler serves every collection and both backends: filters, search and sort become
WHERE and ORDER BY fragments with `?` placeholders, and the only backend difference (how
a case-sensitive pattern is matched) goes through `infrastructure.database`'s seam.

Filters follow SQL's null semantics, as Directus does (see `projections.items.filters`).
Case-insensitive operators and search compare `LOWER` of both sides, which on SQLite
folds ASCII letters only.

Item rules: a related item that fails its collection's rule does not exist for the
caller, wherever a relation is crossed (nested fields, filters, sort): it reads as null
(many-to-one) or is left out (to-many), a filter sees it as missing, a sort as NULL.
A rule itself is applied as written, without the rules of the collections it reaches.

Integers beyond the signed 64-bit range can never be stored: a key beyond it matches
nothing, and a filter value beyond the safe integers (±2^53-1) is a QueryError.

`search` and the case-insensitive substring filters (`_icontains`, `_istarts_with`,
`_iends_with`) go through the tables' search indexes (`projections.search_index`) where
there is one and the term is long enough, with the same answers as without.

This module plans and runs the reads; the SQL comes from its neighbours: `filters`,
`search`, `ordering` and `shaping` (rows into nested items), with what they share in `sql`.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from domain.collections.coercion import check_text, coerce_value
from domain.collections.deep import NestedQuery
from domain.collections.filters import Condition, Filter
from domain.collections.item_query import Aggregate, ItemQuery
from domain.collections.query_errors import QueryError
from domain.collections.schema import Collection, Field, FieldType, Schema
from domain.collections.selection import select
from domain.collections.validation import validate
from infrastructure.connection import Connection
from infrastructure.database import Database
from projections.items.filters import FilterCompiler, RuleBook, compile_filter
from projections.items.ordering import order_by
from projections.items.search import TextIndex, compile_search
from projections.items.shaping import Shaper, decode
from projections.items.sql import AllowedFields, Items, Keys, Rules, Sql, field_of, param
from projections.search_index import has_search_index, search_column

# SQLite takes an OFFSET only after a LIMIT; this one never cuts anything off.
_NO_LIMIT = 2**63 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# A key given as integer text is read exactly (`parse_number` stops at safe integers).
_INTEGER_KEY = re.compile(r"\s*[+-]?[0-9]{1,40}\s*")

_AGGREGATE_SQL = {
    "count": "COUNT({})",
    "countDistinct": "COUNT(DISTINCT {})",
    "countAll": "COUNT(*)",
    "sum": "SUM({})",
    "sumDistinct": "SUM(DISTINCT {})",
    "avg": "AVG({})",
    "avgDistinct": "AVG(DISTINCT {})",
    "min": "MIN({})",
    "max": "MAX({})",
}


class ItemReader:
    """Reads platform collections the Directus way: filter, search, sort, page, fields.

    Synchronous; callers run it in a worker thread. The caller's permissions come as:

    - `restrict`: the item rule of the collection read (None: every item);
    - `restrict_related`: collection name -> item rule, for every collection the caller
      may read that has a rule (a collection absent from it: every item). It applies
      wherever a relation is crossed into that collection — nested fields, filters
      (`meta` counts included) and sort — so it must hold the rule of EVERY readable
      collection that has one, the read collection's own included (relations may lead
      back to it); where that one is absent, `restrict` stands in for it;
    - `allowed_fields`: collection name -> the fields the caller may read ("*": all;
      None: no restriction at all). A collection absent from it cannot be read, not even
      crossed into.

    Rules are filters as `resolve_variables` leaves them (validated again here, as
    permission rules).
    """

    def __init__(self, database: Database, schema: Schema) -> None:
        self._db = database
        self._schema = schema
        # Tables (and search columns) known to have their search index: a table never
        # loses it (a replay drops and builds both in one transaction).
        self._indexed: set[tuple[str, str]] = set()

    def list(
        self,
        collection_name: str,
        query: ItemQuery,
        *,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> Items:
        """The items matching the query and `restrict` (and with these primary `keys`),
        shaped by `query.fields`; related items are limited by `restrict_related`."""
        collection = self._schema[collection_name]
        query = validate(query, collection, self._schema, allowed_fields=allowed_fields)
        selection = select(
            query.fields,
            collection,
            self._schema,
            allowed_fields,
            alias=query.alias,
            deep=query.deep,
        )
        rules = self._rule_book(collection, restrict, restrict_related)
        order, order_params = order_by(self._schema, collection, query.sort, allowed_fields, rules)
        limit = _NO_LIMIT if query.limit is None else query.limit

        def nested_conditions(
            conn: Connection, target: Collection, nested: NestedQuery
        ) -> Sql | None:
            if nested.filter is None and nested.search is None:
                return None
            only = ItemQuery(fields=(), filter=nested.filter, search=nested.search)
            return self._where(conn, target, only, None, None, allowed_fields, rules)

        shaper = Shaper(self._schema, rules, allowed_fields, nested_conditions)
        # A page in the order of an index: reading rows in that order may fill it soonest.
        in_index_order = len(query.sort) <= 1 and all(
            path in (collection.sort_field, collection.primary_key) for path, _ in query.sort
        )
        window = query.limit + query.offset if query.limit and in_index_order else None
        with self._db.reading() as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules, window
            )
            _, items = shaper.fetch(
                conn,
                collection,
                selection,
                f"{where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, *order_params, limit, query.offset],
            )
        return items

    def count(
        self,
        collection_name: str,
        *,
        filter: Filter | None = None,
        search: str | None = None,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> int:
        """How many items match: `restrict` alone for meta total_count, with `filter` and
        `search` for filter_count, with `keys` for checking that items exist. Pass the
        same `restrict_related` as to `list`: a filter crossing relations sees only the
        related items that pass their rules."""
        collection = self._schema[collection_name]
        query = validate(
            ItemQuery(fields=(), filter=filter, search=search),
            collection,
            self._schema,
            allowed_fields=allowed_fields,
        )
        rules = self._rule_book(collection, restrict, restrict_related)
        with self._db.reading() as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules
            )
            total = conn.fetchval(
                f'SELECT COUNT(*) FROM "{collection.table}" AS t WHERE {where}', params
            )
        return int(total)

    def aggregate(
        self,
        collection_name: str,
        query: ItemQuery,
        *,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> Items:
        """Directus's `aggregate` and `groupBy`: one row per group of the items matching
        the query and `restrict` (one row in all without `groupBy`), holding the group's
        fields and its aggregates, such as `{"status": "active", "count": 2, "sum":
        {"quantity": 10}}`. Rows come sorted by `query.sort`, then by the group fields,
        and paged by its limit and offset; `query.fields` is ignored."""
        collection = self._schema[collection_name]
        query = validate(query, collection, self._schema, allowed_fields=allowed_fields)
        rules = self._rule_book(collection, restrict, restrict_related)
        groups = [f't."{name}"' for name in query.group_by]
        outputs = [*groups, *(_aggregate_sql(aggregate) for aggregate in query.aggregate)]
        # Output columns c0, c1, ... by the names a sort gives them.
        names = [*query.group_by, *(aggregate.name for aggregate in query.aggregate)]
        column = {name: f"c{index}" for index, name in enumerate(names)}
        order = [
            column[path] + (" DESC NULLS LAST" if descending else " ASC NULLS FIRST")
            for path, descending in query.sort
        ]
        sorted_by = {path for path, _ in query.sort}
        order += [
            f"{column[name]} ASC NULLS FIRST" for name in query.group_by if name not in sorted_by
        ]
        select_list = ", ".join(f"{sql} AS c{index}" for index, sql in enumerate(outputs))
        limit = _NO_LIMIT if query.limit is None else query.limit
        with self._db.reading() as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules
            )
            sql = f'SELECT {select_list} FROM "{collection.table}" AS t WHERE {where}'
            if groups:
                sql += " GROUP BY " + ", ".join(groups)
            if order:
                sql += " ORDER BY " + ", ".join(order)
            rows = conn.fetchall(f"{sql} LIMIT ? OFFSET ?", [*params, limit, query.offset])
        return [_aggregate_row(collection, query, row) for row in rows]

    def get(
        self,
        collection_name: str,
        key: Any,
        query: ItemQuery | None = None,
        *,
        restrict: Filter | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> dict[str, Any] | None:
        """The item with this primary key, if it matches the query's filter and
        `restrict`; None otherwise."""
        single = replace(query or ItemQuery(), sort=(), limit=None, offset=0)
        items = self.list(
            collection_name,
            single,
            restrict=restrict,
            keys=[key],
            allowed_fields=allowed_fields,
            restrict_related=restrict_related,
        )
        return items[0] if items else None

    def keys_where(self, collection_name: str, field_name: str, value: Any) -> Keys:
        """The primary keys of the items whose stored field `field_name` equals `value`."""
        collection = self._schema[collection_name]
        condition = Condition((field_name,), "_eq", value)
        checked = validate(condition, collection, self._schema, purpose="permission")
        where, params = compile_filter(checked, collection, self._schema, self._db.dialect)
        pk = collection.primary_key
        sql = f'SELECT t."{pk}" FROM "{collection.table}" AS t WHERE {where} ORDER BY t."{pk}"'
        with self._db.reading() as conn:
            rows = conn.fetchall(sql, params)
        return [decode(collection.key, row[0]) for row in rows]

    def max_key(self, collection_name: str) -> int:
        """The largest integer primary key of the collection, 0 when it is empty."""
        collection = self._schema[collection_name]
        if collection.key.type is not FieldType.INTEGER:
            raise ValueError(f"{collection_name} has no integer primary key")
        sql = f'SELECT MAX("{collection.primary_key}") FROM "{collection.table}"'
        with self._db.reading() as conn:
            return int(conn.fetchval(sql) or 0)

    def _rule_book(
        self, collection: Collection, restrict: Filter | None, related: Rules | None
    ) -> RuleBook:
        own = {collection.name: restrict} if restrict is not None else {}
        return RuleBook(self._schema, self._db.dialect, related or {}, own)

    def _where(
        self,
        conn: Connection,
        collection: Collection,
        query: ItemQuery,
        restrict: Filter | None,
        keys: Sequence[Any] | None,
        allowed_fields: AllowedFields | None,
        rules: RuleBook,
        window: int | None = None,
    ) -> Sql:
        dialect = self._db.dialect
        text_index = TextIndex(conn, lambda target: self._has_index(conn, target), window=window)
        parts: list[Sql] = []
        if restrict is not None:
            # The rule itself is applied as written, like the related ones.
            rule = validate(restrict, collection, self._schema, purpose="permission")
            parts.append(compile_filter(rule, collection, self._schema, dialect))
        if query.filter is not None:
            compiler = FilterCompiler(self._schema, dialect, "t", rules, text_index)
            parts.append(compiler.compile(query.filter, collection, "t"))
        if query.search is not None:
            fields = (
                None if allowed_fields is None else allowed_fields.get(collection.name, frozenset())
            )
            parts.append(
                compile_search(query.search, collection, fields=fields, text_index=text_index)
            )
        if keys is not None:
            parts.append(_keys_condition(collection, keys))
        if not parts:
            return "1 = 1", []
        return " AND ".join(sql for sql, _ in parts), [p for _, ps in parts for p in ps]

    def _has_index(self, conn: Connection, collection: Collection) -> bool:
        """Whether the collection's table has its search index."""
        known = (collection.table, search_column(collection))
        if known not in self._indexed and has_search_index(conn, collection):
            self._indexed.add(known)
        return known in self._indexed


def _aggregate_sql(aggregate: Aggregate) -> str:
    column = "*" if aggregate.field == "*" else f't."{aggregate.field}"'
    return _AGGREGATE_SQL[aggregate.function].format(column)


def _aggregate_row(collection: Collection, query: ItemQuery, row: Sequence[Any]) -> dict[str, Any]:
    """A result row of `ItemReader.aggregate` as Directus shapes it: the group's fields,
    then each aggregate under its function (`count`), or under its function and field
    (`{"sum": {"quantity": 10}}`)."""
    item: dict[str, Any] = {}
    for name, value in zip(query.group_by, row, strict=False):
        item[name] = decode(field_of(collection, name), value)
    for aggregate, value in zip(query.aggregate, row[len(query.group_by) :], strict=True):
        function, name = aggregate
        field = None if name == "*" else field_of(collection, name)
        if function.startswith("count"):
            result: Any = int(value)
        elif value is None or field is None:
            result = None
        elif function.startswith("avg"):
            result = float(value)
        elif function.startswith("sum"):
            result = int(value) if field.type is FieldType.INTEGER else float(value)
        else:
            result = decode(field, value)
        if field is None:
            item[function] = result
        else:
            item.setdefault(function, {})[name] = result
    return item


def _keys_condition(collection: Collection, keys: Sequence[Any]) -> Sql:
    """Primary key among `keys`; a key that cannot be of the key's type, or that no
    column can hold (an integer beyond the signed 64-bit range), matches nothing."""
    values = []
    for key in keys:
        value = _key_value(key, collection.key)
        if value is not None:
            values.append(value)
    if not values:
        return "1 = 0", []
    return f't."{collection.primary_key}" IN ({", ".join("?" * len(values))})', values


def _key_value(key: Any, field: Field) -> Any:
    """A primary key as a statement parameter, or None when no stored key can equal it."""
    if isinstance(key, bool) or not isinstance(key, str | int | float):
        return None
    try:
        if isinstance(key, str):
            check_text(key, "A key")
            if field.type is FieldType.INTEGER and _INTEGER_KEY.fullmatch(key):
                key = int(key)
        value = param(coerce_value(key, field))
    except QueryError:
        return None
    if isinstance(value, int) and not _INT64_MIN <= value <= _INT64_MAX:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
