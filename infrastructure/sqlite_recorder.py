"""eventsourcing's SQLite event recorder, writing the audit tree's leaves with the entries."""

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor

from infrastructure.audit.leaf_writer import LeafWriter, stored_entries


class LeafWritingSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """Inserts events as the library does, then their leaves in the same transaction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leaves: LeafWriter | None = None

    def _insert_events(
        self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = super()._insert_events(c, stored_events, **kwargs)
        if self.leaves is not None and ids:
            self.leaves.append(c, stored_entries(ids, stored_events))
        return ids
