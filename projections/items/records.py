"""The tables of the platform collections, one per collection, built from record events."""

from collections.abc import Sequence
from typing import Any

import orjson

from domain.collections.schema import Collection, Field, FieldType
from domain.records.record import Record
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection

_COLUMN_TYPES = {
    FieldType.INTEGER: "{bigint}",
    FieldType.FLOAT: "{real}",
    FieldType.BOOLEAN: "INTEGER",
}


def column_value(field: Field, value: Any) -> Any:
    """A field's value as its column holds it (see FieldType)."""
    if value is None:
        return None
    if field.type is FieldType.BOOLEAN:
        return 1 if value else 0
    if field.type is FieldType.JSON:
        return orjson.dumps(value).decode()
    return value


def collection_ddl(collection: Collection) -> tuple[str, ...]:
    """The table of a collection, with an index on each relation and unique field."""
    columns = []
    for field in collection.fields:
        column = f'"{field.name}" {_COLUMN_TYPES.get(field.type, "TEXT")}'
        if field.name == collection.primary_key:
            column += " PRIMARY KEY"
        columns.append(column)
    statements = [f'CREATE TABLE IF NOT EXISTS "{collection.table}" ({", ".join(columns)})']
    # Relations and unique values are looked up by value: joins, lookups by e-mail.
    for field in collection.fields:
        if field.relation is not None or field.unique:
            statements.append(
                f'CREATE INDEX IF NOT EXISTS "{collection.table}_{field.name}"'
                f' ON "{collection.table}" ("{field.name}")'
            )
    return tuple(statements)


class RecordsProjection(Projection):
    """Keeps one table per collection equal to its records' current values, each with
    its search index (`projections.search_index`)."""

    name = "records"
    follows = (Record.Created, Record.Updated, Record.Deleted, Record.Recreated)

    def __init__(self, collections: Sequence[Collection]) -> None:
        self._collections = {c.name: c for c in collections}
        self.schema = tuple(s for c in collections for s in collection_ddl(c))
        self.tables = tuple(c.table for c in collections)
        self.searched = tuple(collections)

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert, update or delete each record's row as its events say."""
        for logged in events:
            change: Any = logged.event
            name, key = Record.split_id(change.originator_id)
            collection = self._collections.get(name)
            if collection is None:
                # A collection this version does not serve has no table to write.
                continue
            pk = int(key) if collection.key.type is FieldType.INTEGER else key
            if isinstance(change, Record.Created | Record.Recreated):
                self._insert(conn, collection, {**change.values, collection.primary_key: pk})
            elif isinstance(change, Record.Updated):
                self._update(conn, collection, pk, change.changes)
            else:
                conn.execute(
                    f'DELETE FROM "{collection.table}" WHERE "{collection.primary_key}" = ?', (pk,)
                )

    @staticmethod
    def _insert(conn: Connection, collection: Collection, values: dict[str, Any]) -> None:
        fields = [f for f in collection.fields if f.name in values]
        columns = ", ".join(f'"{f.name}"' for f in fields)
        conn.execute(
            f'INSERT INTO "{collection.table}" ({columns}) VALUES ({", ".join("?" * len(fields))})',
            [column_value(f, values[f.name]) for f in fields],
        )

    @staticmethod
    def _update(conn: Connection, collection: Collection, pk: Any, changes: dict[str, Any]) -> None:
        fields = [f for f in collection.fields if f.name in changes]
        if not fields:
            return
        assignments = ", ".join(f'"{f.name}" = ?' for f in fields)
        conn.execute(
            f'UPDATE "{collection.table}" SET {assignments} WHERE "{collection.primary_key}" = ?',
            [*(column_value(f, changes[f.name]) for f in fields), pk],
        )
