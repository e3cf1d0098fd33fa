"""The event store: the eventsourcing library's recorder on SQLite or PostgreSQL.

Every aggregate of the service lives in one application, so one notification log orders
all writes; its positions are what projections and cursors follow.
"""

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import (
    IntegrityError,
    Notification,
    Recording,
    StoredEvent,
    Transcoder,
)
from eventsourcing.utils import get_topic
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool

from domain.aggregate import Aggregate, DomainEvent
from infrastructure import log_dictionaries
from infrastructure.audit.leaf_writer import LeafWriter, stored_entries
from infrastructure.connection import Connection
from infrastructure.database_url import DatabaseUrl
from infrastructure.log_compression import (
    LogCompressor,
    add_lookup,
    decompressed,
    dictionary_id,
    learn,
    remove_lookup,
)
from infrastructure.log_dictionaries import StoredDictionary
from infrastructure.log_topics import ShortTopicMapper, stored_topics
from infrastructure.orjson_transcoder import OrjsonTranscoder
from infrastructure.postgres_recorder import (
    UnpipelinedPostgresApplicationRecorder,
    append_lock_statements,
    insert_columns,
)
from infrastructure.sql_conditions import chunks
from infrastructure.sqlite_recorder import LeafWritingSQLiteApplicationRecorder

__all__ = ["DuplicateAggregate", "EventStore", "LoggedEvent", "log_position", "log_table"]


def log_table(backend: str) -> str:
    """The table of the log, as eventsourcing's recorder of `backend` names it."""
    return "stored_events" if backend == "sqlite" else "tracepoint_events"


def log_position(backend: str) -> str:
    """The column of the log table that holds an entry's log position."""
    # eventsourcing's SQLite recorder numbers notifications by the table's rowid.
    return "rowid" if backend == "sqlite" else "notification_id"


class DuplicateAggregate(Exception):
    """A save tried to create an aggregate whose identity is already stored."""


class _TracepointApplication(Application[str]):
    """The eventsourcing application that owns the event store tables."""

    name = "Tracepoint"
    #: `MAPPER_TOPIC` in the environment makes it ours.
    mapper: ShortTopicMapper

    def construct_transcoder(self) -> Transcoder:
        """orjson instead of the standard library: same bytes, faster both ways."""
        return OrjsonTranscoder()

    def record(self, items: Sequence[Aggregate | DomainEvent]) -> list[Recording[str]]:
        """`save` for our own aggregates and events.

        The library's `save` tells aggregates from events with two runtime protocol checks
        per object, about a sixth of a large capture's store time; a class check will do.
        """
        processing_event: ProcessingEvent[str] = ProcessingEvent()
        for item in items:
            if isinstance(item, Aggregate):
                processing_event.events.extend(item.collect_events())
                processing_event.aggregates[item.id] = item
            else:
                processing_event.events.append(item)
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        return recordings


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """A domain event with its position in the notification log.

    `derived` is what the writer already computed from the event for the projections
    (capture: its index terms), so that they need not compute it again; never stored.
    """

    position: int
    event: DomainEventProtocol[str]
    derived: object = None


def _environment(url: DatabaseUrl) -> dict[str, str]:
    env = {
        "ORIGINATOR_ID_TYPE": "text",
        "CREATE_TABLE": "y",
        "COMPRESSOR_TOPIC": get_topic(LogCompressor),
        "MAPPER_TOPIC": get_topic(ShortTopicMapper),
    }
    if url.backend == "sqlite":
        env |= {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": url.path}
        env["SQLITE_LOCK_TIMEOUT"] = "30"
        env["APPLICATION_RECORDER_TOPIC"] = get_topic(LeafWritingSQLiteApplicationRecorder)
    else:
        env |= {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": url.dbname,
            "POSTGRES_HOST": url.host,
            "POSTGRES_PORT": str(url.port),
            "POSTGRES_USER": url.user,
            "POSTGRES_PASSWORD": url.password,
            "POSTGRES_SCHEMA": url.schema,
            # Captures wait their turn for the table lock rather than fail at once.
            "POSTGRES_LOCK_TIMEOUT": "30",
            # A 10,000-event capture keeps its transaction open longer than the default 5 s.
            "POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT": "60",
            "POSTGRES_CONNECT_TIMEOUT": "5",
            # Connections are opened as they are needed (up to 12), as the read models'
            # pool opens its own: eventsourcing opens its pool's size at once, and each
            # PostgreSQL backend costs ~6 ms of the server's CPU to start.
            "POSTGRES_POOL_SIZE": "1",
            "APPLICATION_RECORDER_TOPIC": get_topic(UnpipelinedPostgresApplicationRecorder),
            "POSTGRES_MAX_OVERFLOW": "11",
        }
    return env


class EventStore:
    """Appends aggregates' new events atomically and reads the log back in order."""

    def __init__(self, url: DatabaseUrl, *, audit_tree: bool = True) -> None:
        """Open the store; with `audit_tree`, every append writes its entries' leaves of
        the audit tree in its transaction (see `infrastructure.audit`)."""
        url.ensure_directory()
        self._app = _TracepointApplication(env=_environment(url))
        self._url = url
        recorder: Any = self._app.recorder
        writer = LeafWriter(url.backend, url.schema if url.backend == "postgresql" else None)
        with recorder.datastore.transaction(commit=True) as cursor:
            for statement in writer.ddl():
                cursor.execute(statement)
        #: Writes the audit tree's leaves (also when appends do not: seal, rebuild).
        self.leaf_writer = writer
        # What `lock_within` sends, made once: it runs for every capture.
        self._turn = (
            # Listeners of eventsourcing's channel learn of the write as from the library.
            append_lock_statements(
                url.schema, log_table("postgresql"), notify=recorder.channel_name
            )
            if url.backend == "postgresql"
            else []
        )
        self._leaves = writer if audit_tree else None
        recorder.leaves = self._leaves
        self._compressor: LogCompressor = self._app.mapper.compressor  # type: ignore[assignment]
        self.load_dictionaries()
        add_lookup(self.load_dictionaries)

    def save(self, *items: Aggregate | DomainEvent) -> int:
        """Store the pending events of all aggregates, and the given events, in one transaction.

        Returns the log position of the last event stored (0 when there was nothing).
        Raises DuplicateAggregate if any new aggregate's identity is already taken,
        in which case nothing at all was stored.
        """
        logged = self.append(*items)
        return logged[-1].position if logged else 0

    def append(
        self,
        *items: Aggregate | DomainEvent,
        derived: Mapping[tuple[str, int], object] | None = None,
    ) -> list[LoggedEvent]:
        """`save`, returning the stored events with their log positions, in log order.

        `derived` maps (aggregate ID, version) to what each returned event carries as
        `derived`.
        """
        try:
            recordings = self._app.record(items)
        except IntegrityError as exc:
            raise DuplicateAggregate(str(exc)) from exc
        extra = derived or {}
        logged = [
            LoggedEvent(
                r.notification.id,
                r.domain_event,
                extra.get((r.domain_event.originator_id, r.domain_event.originator_version)),
            )
            for r in recordings
        ]
        logged.sort(key=lambda e: e.position)
        return logged

    def lock_within(self, conn: Connection) -> None:
        """Take the log's write turn in `conn`'s transaction, returning once it is held:
        until the transaction ends, nobody else appends, so what it appends commits in log
        order (PostgreSQL: `append_lock_statements`; an SQLite write transaction holds the
        file's lock already)."""
        if conn.dialect.name == "postgresql":
            if conn.pipelined:  # a pipeline takes one statement at a time
                for statement in self._turn:
                    conn.send(statement)
                # Answered before returning: what the caller does next under the turn
                # (a capture stamps its record time) must come after every append that
                # took the turn before, also one of another process whose backend got
                # to the lock first though its statement was sent later.
                conn.sync()
            else:  # one round trip
                conn.raw.execute("; ".join(self._turn))

    def append_within(
        self,
        conn: Connection,
        *items: Aggregate | DomainEvent,
        derived: Mapping[tuple[str, int], object] | None = None,
    ) -> list[LoggedEvent]:
        """`append` in the caller's transaction, which has taken `lock_within`: the log
        entries commit or vanish with whatever else the transaction writes.

        Raises DuplicateAggregate when an identity and version is taken; the caller's
        transaction is then unusable and must be rolled back.
        """
        events: list[DomainEventProtocol[str]] = []
        for item in items:
            if isinstance(item, Aggregate):
                events.extend(item.collect_events())
            else:
                events.append(item)
        positions = self.append_stored_within(conn, self._app.mapper.to_stored_events(events))
        extra = derived or {}
        return [
            LoggedEvent(
                position,
                event,
                extra.get((event.originator_id, event.originator_version)),
            )
            for position, event in zip(positions, events, strict=True)
        ]

    def append_stored_within(self, conn: Connection, stored: Sequence[StoredEvent]) -> list[int]:
        """Append entries already in their stored form, as `append_within` does; their
        positions, in order."""
        try:
            positions = self._insert(conn, stored)
        except (sqlite3.IntegrityError, pg_errors.UniqueViolation) as exc:
            raise DuplicateAggregate(str(exc)) from exc
        if self._leaves is not None and positions:
            entries = stored_entries(positions, stored)
            conn.before_commit(self._leaves.send(conn.raw.cursor(), entries))
        return positions

    def load_dictionaries(self) -> list[StoredDictionary]:
        """Learn the log's trained dictionaries and compress new entries with the newest;
        all of them, oldest first."""
        rows = self._select([log_dictionaries.AGGREGATE], "state", order="originator_version")
        found = log_dictionaries.learned(state for part in rows for (state,) in part)
        if found:
            self._compressor.dictionary = learn(found[-1].content)
        return found

    def dictionary_position(self, key: bytes) -> int | None:
        """The log position of the trained dictionary whose ID is `key`, if the log has it."""
        columns = f"{log_position(self._url.backend)}, state"
        for rows in self._select([log_dictionaries.AGGREGATE], columns):
            for position, state in rows:
                content = log_dictionaries.stored_dictionary(bytes(state)).content
                if dictionary_id(content) == key:
                    return int(position)
        return None

    def newest_entries(self, count: int) -> list[bytes]:
        """The JSON of the newest `count` log entries (a trained dictionary's samples)."""
        rows = self._rows(
            f"SELECT state FROM {self._table()} WHERE topic <> '{log_dictionaries.TOPIC}'"
            f" ORDER BY {log_position(self._url.backend)} DESC LIMIT {int(count)}"
        )
        return [decompressed(bytes(state)) for (state,) in rows]

    def _insert(self, conn: Connection, stored: Sequence[StoredEvent]) -> list[int]:
        """Insert log entries with the recorder's own statement; their positions, in order."""
        if not stored:
            return []
        recorder: Any = self._app.recorder
        if conn.dialect.name == "postgresql":
            rows = conn.raw.execute(
                recorder.insert_columns_statement,
                insert_columns(stored, recorder.datastore.originator_id_type),
                binary=True,
            ).fetchall()
            return [int(row[0]) for row in rows]
        conn.raw.executemany(
            recorder.insert_events_statement,
            [(e.originator_id, e.originator_version, e.topic, e.state) for e in stored],
        )
        # The write transaction holds the file: nobody else took rowids in between.
        last = int(conn.raw.execute("SELECT last_insert_rowid()").fetchone()[0])
        return list(range(last - len(stored) + 1, last + 1))

    def get(self, aggregate_id: str) -> Any:
        """Rebuild one aggregate from its events (raises KeyError when it does not exist)."""
        from eventsourcing.application import AggregateNotFoundError

        try:
            return self._app.repository.get(aggregate_id)
        except AggregateNotFoundError as exc:
            raise KeyError(aggregate_id) from exc

    def events_of(self, aggregate_id: str) -> list[DomainEventProtocol[str]]:
        """Every event of one aggregate, oldest first (empty when it was never stored)."""
        return list(self._app.events.get(aggregate_id))

    def existing_ids(self, aggregate_ids: Sequence[str]) -> set[str]:
        """Which of these aggregate identities are already stored."""
        found: set[str] = set()
        for rows in self._select(aggregate_ids, "DISTINCT originator_id"):
            found.update(row[0] for row in rows)
        return found

    def events_of_many(self, aggregate_ids: Sequence[str]) -> dict[str, list[DomainEvent]]:
        """Every event of each of these aggregates that is stored, oldest first; a few
        statements for any number, where `events_of` takes one each."""
        found: dict[str, list[DomainEvent]] = {}
        to_event = self._app.mapper.to_domain_event
        columns = "originator_id, originator_version, topic, state"
        for rows in self._select(aggregate_ids, columns, order="originator_version"):
            for originator_id, version, topic, state in rows:
                stored = StoredEvent(originator_id, version, topic, bytes(state))
                found.setdefault(originator_id, []).append(to_event(stored))
        return found

    def _select(
        self, aggregate_ids: Sequence[str], columns: str, order: str | None = None
    ) -> Iterator[list[tuple[Any, ...]]]:
        # The library reads one aggregate per statement; capture asks about thousands.
        placeholder = "?" if self._url.backend == "sqlite" else "%s"
        for part in chunks(list(dict.fromkeys(aggregate_ids)), 500):
            sql = (
                f"SELECT {columns} FROM {self._table()} "
                f"WHERE originator_id IN ({', '.join([placeholder] * len(part))})"
                + (f" ORDER BY {order}" if order else "")
            )
            yield self._rows(sql, list(part))

    def _table(self) -> str:
        """The log's table as the recorder's own statements name it."""
        recorder: Any = self._app.recorder
        if self._url.backend == "sqlite":
            return str(recorder.events_table_name)
        return f'"{recorder.datastore.schema}"."{recorder.events_table_name}"'

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of a query on the recorder's own connections, as tuples."""
        recorder: Any = self._app.recorder
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(sql, list(params))
            return [
                tuple(row.values()) if isinstance(row, dict) else tuple(row)
                for row in cursor.fetchall()
            ]

    def seal(self, conn: Connection) -> int:
        """Give every log entry that has no leaf of the audit tree its leaf, in `conn`'s
        transaction, which has taken `lock_within`; the number written."""
        return self.leaf_writer.fill(conn.raw.cursor(), 2**62)

    def max_position(self) -> int:
        """The position of the newest event in the log (0 when empty)."""
        return int(self._app.recorder.max_notification_id() or 0)

    def read(
        self, after: int, limit: int, stop: int | None = None, topics: Sequence[str] = ()
    ) -> list[LoggedEvent]:
        """Up to `limit` events after position `after` (and at most `stop`), in log order."""
        notifications: Sequence[Notification] = self._app.recorder.select_notifications(
            start=after,
            limit=limit,
            stop=stop,
            topics=stored_topics(topics),
            inclusive_of_start=False,
        )
        to_event = self._app.mapper.to_domain_event
        return [LoggedEvent(n.id, to_event(n)) for n in notifications]

    def drop_broken_connections(self) -> None:
        """Test the idle pooled connections and replace those that no longer work (after
        an outage), so the next use gets a live one (PostgreSQL)."""
        datastore = getattr(self._app.recorder, "datastore", None)
        pool = getattr(datastore, "pool", None)
        if isinstance(pool, ConnectionPool) and not pool.closed:
            pool.check()

    def close(self) -> None:
        """Release the store's connections."""
        remove_lookup(self.load_dictionaries)
        self._app.close()
