"""The code_scan table: one row per resolution of a scanned code."""

from collections.abc import Sequence
from typing import Any

from domain.codes.scan import Scan
from domain.collections.schema import Collection
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.items.records import collection_ddl
from projections.projection import Projection


class CodeScansProjection(Projection):
    """Inserts a row for every recorded scan."""

    name = "code_scans"
    follows = (Scan.Recorded,)

    def __init__(self, collection: Collection) -> None:
        self._collection = collection
        table = collection.table
        self.schema = (
            *collection_ddl(collection),
            # Integrity rules look up a code's recent scans.
            f'CREATE INDEX IF NOT EXISTS "{table}_code_time" ON "{table}" (code, scanned_at)',
        )
        self.tables = (table,)
        self.searched = (collection,)
        self._has_account = collection.field("account") is not None

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """One row per scan."""
        names = [
            "id",
            "scanned",
            "type",
            "code",
            "product",
            "lot",
            "scanned_at",
            "ip",
            "user_agent",
            "latitude",
            "longitude",
            "country",
        ]
        if self._has_account:
            names.append("account")
        rows: list[tuple[Any, ...]] = []
        for logged in events:
            s: Any = logged.event
            row = [
                s.scan,
                s.scanned,
                s.type,
                s.code,
                s.product,
                s.lot,
                s.at,
                s.ip,
                s.user_agent,
                s.latitude,
                s.longitude,
                s.country,
            ]
            if self._has_account:
                row.append(s.account)
            rows.append(tuple(row))
        conn.insert_many(f'"{self._collection.table}"', [f'"{n}"' for n in names], rows)
