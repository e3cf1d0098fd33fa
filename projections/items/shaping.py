"""Rows into items: stored values as the API shows them, related items read and nested."""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import orjson

from domain.collections.schema import Collection, Field, FieldType, Schema
from domain.collections.selection import CONCEALED, Selection, is_concealed
from infrastructure.database import Connection, chunks
from projections.items.filters import RuleBook
from projections.items.sql import Items, Sql, and_rule, link_condition

_KEYS_PER_STATEMENT = 500


class Shaper:
    """Reads rows of a collection and shapes them into items, related items included.

    Related items are read with one query per relation (per chunk of keys) for all the
    rows at once, never one query per row, and only those that pass their rules.
    """

    def __init__(self, schema: Schema, rules: RuleBook) -> None:
        self._schema = schema
        self._rules = rules

    def fetch(
        self,
        conn: Connection,
        collection: Collection,
        selection: Selection,
        tail: str,
        params: list[Any],
        extra: Sequence[str] = (),
    ) -> tuple[list[dict[str, Any]], Items]:
        """The raw rows (column -> stored value) and the items of `SELECT ... WHERE tail`."""
        stored = [key for key in selection.keys if collection.field(key) is not None]
        columns = list(dict.fromkeys([*stored, collection.primary_key, *extra]))
        select_list = ", ".join(f't."{column}"' for column in columns)
        rows = conn.fetchall(
            f'SELECT {select_list} FROM "{collection.table}" AS t WHERE {tail}', params
        )
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
            field = collection.field(key)
            child = selection.child(key)
            if field is not None and child is None:
                for item, row in zip(items, raw, strict=True):
                    item[key] = decode(field, row[key])
            elif field is not None and child is not None:
                related = self._many_to_one(conn, field, child, [row[key] for row in raw])
                for item, row in zip(items, raw, strict=True):
                    item[key] = related.get(row[key])
            else:
                groups = self._one_to_many(conn, collection, key, child, raw)
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
            raw, items = self.fetch(conn, target, selection, where, params)
            found.update(zip((row[target.primary_key] for row in raw), items, strict=True))
        return found

    def _one_to_many(
        self,
        conn: Connection,
        collection: Collection,
        name: str,
        selection: Selection | None,
        parents: list[dict[str, Any]],
    ) -> dict[Any, list[Any]]:
        link = collection.alias(name)
        assert link is not None
        target = self._schema[link.collection]
        keys_only = selection is None
        wanted = selection or Selection(target.name, (target.primary_key,))
        order = f't."{target.sort_field}" ASC NULLS FIRST, t."{target.primary_key}" ASC'
        groups: defaultdict[Any, list[Any]] = defaultdict(list)
        parent_keys = list(dict.fromkeys(row[collection.primary_key] for row in parents))
        for chunk in chunks(parent_keys, _KEYS_PER_STATEMENT):
            where, params = self._in(target, link.foreign_key, chunk)
            where += link_condition(link, "t")
            raw, items = self.fetch(
                conn, target, wanted, f"{where} ORDER BY {order}", params, (link.foreign_key,)
            )
            for row, item in zip(raw, items, strict=True):
                groups[row[link.foreign_key]].append(
                    item[target.primary_key] if keys_only else item
                )
        return groups

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
