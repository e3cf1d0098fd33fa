"""The PostgreSQL event recorder, without psycopg's pipeline mode and with binary inserts,
and the lock appends to the log take turns on.

eventsourcing's recorder sends LOCK TABLE, NOTIFY and the INSERT as one pipeline. With a
capture of 10,000 events (a parameter of ~14 MB) that pipeline stalled for good: the
server waited to read the rest of the INSERT, the client waited for results. Sent as
plain statements in one transaction the same work completes, and keeps appends taking
turns, which makes commit order equal notification-id order, as cursors rely on.

The library also sends the rows as one array of a composite type, which psycopg can only
write as escaped text: a third of the time of storing a large capture went into regular
expressions escaping event state. Four parallel arrays in binary need no escaping.
"""

import time
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier

from infrastructure.audit.leaf_writer import LeafWriter, stored_entries
from infrastructure.connection import lock_key
from infrastructure.outages import cannot_connect
from infrastructure.pg_arrays import EncodedArray, encoded_array

#: Tries of an insert whose connection broke (the library's number).
_INSERT_ATTEMPTS = 10


#: The advisory lock appends to the log take turns on (scoped by schema: `lock_key`).
APPEND_LOCK = "tracepoint-log-append"


def append_lock_statements(schema: str, table: str, notify: str | None = None) -> list[str]:
    """What a transaction runs before it appends to the log `schema.table`: appends then
    take turns, each from its first notification id to its commit. With `notify`, the
    lock's statement also notifies that channel (as NOTIFY does, one statement fewer).

    eventsourcing takes the table lock (EXCLUSIVE) for this. That mode also conflicts
    with the lock (auto)vacuum and ANALYZE hold on the table, so every append waited
    behind a vacuum of the log: until deadlock_timeout cancelled an autovacuum (which
    then never finished, and left the log's pages unfrozen), and for the whole of an
    anti-wraparound vacuum, which is not cancelled. An advisory lock conflicts with
    nothing else. ROW EXCLUSIVE, which an INSERT takes anyway, still conflicts with
    EXCLUSIVE: processes of an earlier release, which take the table lock, and these
    still take turns (also while the audit tree is sealed, which inserts nothing here).
    """
    notified = "" if notify is None else ", pg_notify('{}', '')".format(notify.replace("'", "''"))
    return [
        f"SELECT pg_advisory_xact_lock({lock_key(APPEND_LOCK, schema)}){notified}",
        f'LOCK TABLE "{schema}"."{table}" IN ROW EXCLUSIVE MODE',
    ]


def insert_columns(
    stored_events: Sequence[StoredEvent], id_type: str = "text"
) -> tuple[EncodedArray | list[Any], ...]:
    """The parameters of `insert_columns_statement`: one array per column."""
    return (
        encoded_array([e.originator_id for e in stored_events], id_type),
        encoded_array([e.originator_version for e in stored_events], "bigint"),
        encoded_array([e.topic for e in stored_events], "text"),
        encoded_array([e.state for e in stored_events], "bytea"),
    )


class UnpipelinedPostgresApplicationRecorder(PostgresApplicationRecorder):
    """Inserts events taking turns (`append_lock_statements`), statement by statement, in
    one transaction, with their leaves of the audit tree when `leaves` is set."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leaves: LeafWriter | None = None
        # The library's lock timeout, then our turn instead of its table lock.
        self.lock_table_statements = [
            self.lock_table_statements[0],
            *(
                SQL(statement)
                for statement in append_lock_statements(
                    self.datastore.schema, self.events_table_name
                )
            ),
        ]
        self.insert_columns_statement = SQL(
            "INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(%b::{id_type}[], %b::bigint[], %b::text[], %b::bytea[]) "
            "RETURNING notification_id"
        ).format(
            schema=Identifier(self.datastore.schema),
            table=Identifier(self.events_table_name),
            id_type=Identifier(self.datastore.originator_id_type),
        )

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Lock, notify and insert in one transaction; return the new notification ids.

        Like the library, a connection that broke is retried on another (a retry after a
        commit that did happen is refused as a duplicate, which capture handles). Unlike
        it, a pool that has no connection to give is not: ten waits of its timeout would
        hold a capture for most of a minute in an outage, instead of answering 503.
        """
        for attempt in range(1, _INSERT_ATTEMPTS + 1):
            try:
                return self._insert_in_one_transaction(stored_events, **kwargs)
            except (InterfaceError, OperationalError) as exc:
                if attempt == _INSERT_ATTEMPTS or cannot_connect(exc):
                    raise
                time.sleep(0.2)
        return None  # not reached: the last attempt returns or raises

    def max_notification_id(self) -> int | None:
        """The newest notification id. A connection that broke is retried once on another,
        not ten times as the library does: with the server down that held every caller
        (a /metrics scrape, a projection poll) for half a minute."""
        for attempt in (1, 2):
            try:
                with self.datastore.get_connection() as conn, conn.cursor() as curs:
                    curs.execute(self.max_notification_id_statement)
                    row = curs.fetchone()
                    return None if row is None else row["max"]
            except (InterfaceError, OperationalError) as exc:
                if attempt == 2 or cannot_connect(exc):
                    raise
        return None  # not reached: the last attempt returns or raises

    def _insert_in_one_transaction(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events:
            return None
        with (
            self.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor() as curs,
        ):
            self._insert_events(curs, stored_events, **kwargs)
            self._insert_stored_events(curs, stored_events, **kwargs)
            ids = self._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
            if self.leaves is not None and ids:
                self.leaves.append(curs, stored_entries(ids, stored_events))
            return ids

    def _insert_stored_events(
        self, curs: Cursor[DictRow], stored_events: Sequence[StoredEvent], **_: Any
    ) -> None:
        self._lock_table(curs)
        self._notify_channel(curs)
        curs.execute(
            self.insert_columns_statement,
            insert_columns(stored_events, self.datastore.originator_id_type),
            binary=True,
        )
