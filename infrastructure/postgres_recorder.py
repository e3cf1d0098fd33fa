"""The PostgreSQL event recorder, without psycopg's pipeline mode.

eventsourcing's recorder sends LOCK TABLE, NOTIFY and the INSERT as one pipeline. With a
capture of 10,000 events (a parameter of ~14 MB) that pipeline stalled for good: the
server waited to read the rest of the INSERT, the client waited for results. Sent as
plain statements in one transaction the same work completes, and keeps the table lock
that makes commit order equal notification-id order, which cursors rely on.
"""

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.utils import retry


class UnpipelinedPostgresApplicationRecorder(PostgresApplicationRecorder):
    """Inserts events with the table lock, statement by statement, in one transaction."""

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Lock, notify and insert in one transaction; return the new notification ids."""
        if not stored_events:
            return None
        with (
            self.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor() as curs,
        ):
            self._insert_events(curs, stored_events, **kwargs)
            self._insert_stored_events(curs, stored_events, **kwargs)
            return self._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
