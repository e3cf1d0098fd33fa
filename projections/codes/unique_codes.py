"""The unique_code table, built from chunks of generated codes.

Besides the collection's fields each row keeps where its code lives (chunk and place in
it) and the scope its code is unique in, so a change to a code finds its chunk and a job
can ask which candidate codes are taken.
"""

import dataclasses
from collections.abc import Sequence
from typing import Any

from domain.codes.chunk import CodeChunk, code_ids
from domain.collections.schema import Collection, Field, FieldType
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from infrastructure.sql_conditions import chunks, in_list
from projections.items.records import collection_ddl, column_value
from projections.projection import Projection

#: Where a code lives, beside the collection's own fields.
PLACE_FIELDS = (
    Field("chunk", FieldType.STRING),
    Field("chunk_position", FieldType.INTEGER),
    Field("scope", FieldType.STRING),
)


class UniqueCodesProjection(Projection):
    """One row per generated code; changes to codes update their rows."""

    name = "unique_codes"
    follows = (CodeChunk.Generated, CodeChunk.Changed)

    def __init__(self, collection: Collection) -> None:
        self._collection = collection
        table = collection.table
        stored = dataclasses.replace(collection, fields=(*collection.fields, *PLACE_FIELDS))
        self.schema = (
            *collection_ddl(stored),
            # A job asks whether candidates are taken; the resolver finds a scanned code.
            f'CREATE INDEX IF NOT EXISTS "{table}_scope_code" ON "{table}" (scope, code)',
            f'CREATE INDEX IF NOT EXISTS "{table}_chunk" ON "{table}" (chunk, chunk_position)',
            # Reservations take unassigned codes of a type and product in this order.
            f'CREATE INDEX IF NOT EXISTS "{table}_free"'
            f' ON "{table}" (status, type, product, chunk, chunk_position)',
        )
        self.tables = (table,)
        self.searched = (collection,)
        self._columns = [f.name for f in stored.fields]
        self._fields = {f.name: f for f in stored.fields}

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert the rows of new chunks; update the rows of changed codes."""
        for logged in events:
            change: Any = logged.event
            if isinstance(change, CodeChunk.Generated):
                self._insert(conn, change)
            else:
                self._update(conn, change)

    def _insert(self, conn: Connection, chunk: Any) -> None:
        chunk_key = chunk.originator_id
        common = {
            "product": chunk.product,
            "identifier_job": chunk.job,
            "status": "unassigned",
            "type": chunk.type,
            "user_created": chunk.actor,
            "date_created": chunk.at,
            "chunk": chunk_key,
            "scope": chunk.scope,
        }
        if "account" in self._fields:
            common["account"] = chunk.account
        names = [*common, "id", "code", "digital_link", "epc_join_key", "chunk_position"]
        fixed = tuple(common.values())
        head, codes = chunk.link_head, chunk.codes
        # The join key is the chunk's GTIN and the code (sgtin only; see epc_join_key).
        join = f"{chunk.gtin}-" if chunk.gtin is not None else None
        ids = code_ids(chunk_key, len(codes))
        rows = [
            (*fixed, key, code, head + code, None if join is None else join + code, i)
            for i, (key, code) in enumerate(zip(ids, codes, strict=True))
        ]
        conn.insert_many(f'"{self._collection.table}"', [f'"{n}"' for n in names], rows)

    def _update(self, conn: Connection, change: Any) -> None:
        values = {**change.changes, "user_updated": change.actor, "date_updated": change.at}
        fields = [self._fields[name] for name in values if name in self._fields]
        assignments = ", ".join(f'"{f.name}" = ?' for f in fields)
        settings = [column_value(f, values[f.name]) for f in fields]
        for part in chunks(change.positions, 500):
            params: list[Any] = [*settings, change.originator_id]
            where = in_list("chunk_position", part, params)
            conn.execute(
                f'UPDATE "{self._collection.table}" SET {assignments} WHERE chunk = ? AND {where}',
                params,
            )
