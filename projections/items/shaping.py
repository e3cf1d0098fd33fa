"""Rows into items: stored values as the API shows them, related items read and nested."""

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from domain.collections.deep import NestedQuery
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema
from domain.collections.selection import CONCEALED, Selection, is_concealed
from infrastructure.connection import Connection
from infrastructure.sql_conditions import chunks
from projections.items.filters import RuleBook
from projections.items.ordering import order_by
from projections.items.sql import AllowedFields, Items, Sql, and_rule, link_condition

_KEYS_PER_STATEMENT = 500
#: The column that numbers the related items of each parent, for `deep`'s limit and offset.
_ROW = "__row_number"

#: The SQL condition of a relation's `deep` filter and search on a collection (aliased
#: `t`), or None when it has neither.
NestedConditions = Callable[[Connection, Collection, NestedQuery], Sql | None]


class Shaper:
    """Reads rows of a collection and shapes them into items, related items included.

    Related items are read with one query per relation (per chunk of keys) for all the
    rows at once, never one query per row, and only those that pass their rules and the
    relation's `deep` filter and search; a to-many relation reads its items in the
    `deep` sort (by default the target's sort field) and pages them per parent item.
    """

    def __init__(
        self,
        schema: Schema,
        rules: RuleBook,
        allowed_fields: AllowedFields | None = None,
        conditions: NestedConditions | None = None,
    ) -> None:
        self._schema = schema
        self._rules = rules
        self._allowed_fields = allowed_fields
        self._conditions = conditions

    def fetch(
        self,
        conn: Connection,
        collection: Collection,
        selection: Selection,
        tail: str,
        params: list[Any],
        extra: Sequence[str] = (),
        source: str | None = None,
    ) -> tuple[list[dict[str, Any]], Items]:
        """The raw rows (column -> stored value) and the items of `SELECT ... FROM source
        AS t WHERE tail`; `source` is the collection's table unless given."""
        stored = [
            selection.source(key)
            for key in selection.keys
            if collection.field(selection.source(key)) is not None
        ]
        columns = list(dict.fromkeys([*stored, collection.primary_key, *extra]))
        select_list = ", ".join(f't."{column}"' for column in columns)
        table = source or f'"{collection.table}"'
        rows = conn.fetchall(f"SELECT {select_list} FROM {table} AS t WHERE {tail}", params)
        raw = [dict(zip(columns, row, strict=True)) for row in rows]
        return raw, self._shape(conn, collection, selection, raw)

    def _shape(
        self,
        conn: Connection,
        collection: Collection,
        selection: Selection,
        raw: list[dict[str, Any]],
    ) -> Items:
        items: Items = [{} for _ in raw]
        for key in selection.keys:
            name = selection.source(key)
            field = collection.field(name)
            child = selection.child(key)
            if field is not None and child is None:
                for item, row in zip(items, raw, strict=True):
                    item[key] = decode(field, row[name])
            elif field is not None and child is not None:
                related = self._many_to_one(conn, field, child, [row[name] for row in raw])
                for item, row in zip(items, raw, strict=True):
                    item[key] = related.get(row[name])
            else:
                link = collection.alias(name)
                assert link is not None
                assert child is not None
                groups = self._one_to_many(conn, collection, link, child, raw)
                for item, row in zip(items, raw, strict=True):
                    item[key] = groups.get(row[collection.primary_key], [])
        return items

    def _many_to_one(
        self, conn: Connection, field: Field, selection: Selection, keys: list[Any]
    ) -> dict[Any, dict[str, Any]]:
        assert field.relation is not None
        target = self._schema[field.relation]
        found: dict[Any, dict[str, Any]] = {}
        wanted = list(dict.fromkeys(key for key in keys if key is not None))
        for chunk in chunks(wanted, _KEYS_PER_STATEMENT):
            where, params = self._in(target, target.primary_key, chunk)
            where, params = and_rule(where, params, self._nested(conn, target, selection))
            raw, items = self.fetch(conn, target, selection, where, params)
            found.update(zip((row[target.primary_key] for row in raw), items, strict=True))
        return found

    def _one_to_many(
        self,
        conn: Connection,
        collection: Collection,
        link: Alias,
        selection: Selection,
        parents: list[dict[str, Any]],
    ) -> dict[Any, list[Any]]:
        """The related items of each parent, numbered per parent in the relation's order
        (a window function, the same on both backends) and cut to its page."""
        target = self._schema[link.collection]
        query = selection.query
        order, order_params = order_by(
            self._schema, target, query.sort, self._allowed_fields, self._rules
        )
        page, page_params = f't."{_ROW}" > ?', [query.offset]
        if query.limit is not None:
            page, page_params = (
                f'{page} AND t."{_ROW}" <= ?',
                [*page_params, query.offset + query.limit],
            )
        groups: defaultdict[Any, list[Any]] = defaultdict(list)
        parent_keys = list(dict.fromkeys(row[collection.primary_key] for row in parents))
        for chunk in chunks(parent_keys, _KEYS_PER_STATEMENT):
            where, params = self._in(target, link.foreign_key, chunk)
            where += link_condition(link, "t")
            where, params = and_rule(where, params, self._nested(conn, target, selection))
            numbered = (
                f'(SELECT t.*, ROW_NUMBER() OVER (PARTITION BY t."{link.foreign_key}"'
                f' ORDER BY {order}) AS "{_ROW}" FROM "{target.table}" AS t'
                f" WHERE {where})"
            )
            raw, items = self.fetch(
                conn,
                target,
                selection,
                f'{page} ORDER BY t."{_ROW}"',
                [*order_params, *params, *page_params],
                (link.foreign_key,),
                source=numbered,
            )
            for row, item in zip(raw, items, strict=True):
                groups[row[link.foreign_key]].append(
                    item[target.primary_key] if selection.keys_only else item
                )
        return groups

    def _nested(self, conn: Connection, target: Collection, selection: Selection) -> Sql | None:
        """The condition of the relation's `deep` filter and search, if any."""
        if self._conditions is None:
            return None
        return self._conditions(conn, target, selection.query)

    def _in(self, collection: Collection, column: str, values: Sequence[Any]) -> Sql:
        sql = f't."{column}" IN ({", ".join("?" * len(values))})'
        return and_rule(sql, list(values), self._rules.condition(collection, "t"))


def decode(field: Field, value: Any) -> Any:
    """A stored column value as the API shows it; concealed values are masked."""
    if value is None:
        return None
    if is_concealed(field):
        return CONCEALED
    match field.type:
        case FieldType.BOOLEAN:
            return bool(value)
        case FieldType.INTEGER:
            return int(value)
        case FieldType.FLOAT:
            return float(value)
        case FieldType.JSON:
            # Tolerates a native JSON column, which the driver already decodes.
            return orjson.loads(value) if isinstance(value, str | bytes) else value
        case _:
            return value
