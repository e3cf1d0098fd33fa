"""The database floors capture is measured against: the capture benchmark's own events
stored durably by the engine alone, with the fewest indexes a queryable store needs.

PostgreSQL: each document COPYed as JSON into a table with a primary key (the event ID),
a b-tree on eventTime and a GIN index on the document, one COPY and one commit per
document, `synchronous_commit` on, over one or more connections at once. SQLite: the
same events INSERTed into a table with a key and two indexes (eventTime, bizStep), WAL,
`synchronous = FULL`, one transaction per document, over one connection (SQLite has one
writer: a second connection would only wait for the lock).

Rows are built before the clock starts, so the figure is the engine's, not Python's.
"""

import sqlite3
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import orjson
import psycopg

from bench.generator import NAMESPACES, capture_documents
from domain.epcis.event_hash import event_hash
from infrastructure.database_url import DatabaseUrl

POSTGRESQL_TABLE = """
CREATE TABLE floor_event (
    event_id text PRIMARY KEY,
    event_time timestamptz NOT NULL,
    document jsonb NOT NULL
);
CREATE INDEX floor_event_time ON floor_event (event_time);
CREATE INDEX floor_event_document ON floor_event USING gin (document);
"""

SQLITE_TABLE = """
CREATE TABLE floor_event (
    event_id TEXT PRIMARY KEY,
    event_time INTEGER NOT NULL,
    biz_step TEXT,
    document TEXT NOT NULL
);
CREATE INDEX floor_event_time ON floor_event (event_time);
CREATE INDEX floor_event_biz_step ON floor_event (biz_step);
"""


def postgresql_copy_floor(database_url: str, batch: int, total: int, clients: int) -> float:
    """Events/s COPYing the capture benchmark's documents durably, `clients` at once."""
    payloads = [_copy_text(events) for events in capture_documents(batch, total)]
    with psycopg.connect(database_url, autocommit=True) as setup:
        setup.execute(POSTGRESQL_TABLE)
    connections = [psycopg.connect(database_url) for _ in range(clients)]
    try:
        for connection in connections:
            # The server's default may have been relaxed; the floor is a durable commit.
            connection.execute("SET synchronous_commit = on")
            connection.commit()
        started = time.perf_counter()
        # psycopg releases the interpreter lock while it waits on the server, so threads
        # keep `clients` COPYs in flight as separate client processes would.
        with ThreadPoolExecutor(clients) as pool:
            runs = [
                pool.submit(_copy_all, connection, payloads[i::clients])
                for i, connection in enumerate(connections)
            ]
            for run in runs:
                run.result()
        elapsed = time.perf_counter() - started
    finally:
        for connection in connections:
            connection.close()
    return len(payloads) * batch / elapsed


def _copy_all(connection: psycopg.Connection[Any], payloads: Sequence[bytes]) -> None:
    for payload in payloads:
        with (
            connection.cursor() as cursor,
            cursor.copy("COPY floor_event (event_id, event_time, document) FROM STDIN") as copy,
        ):
            copy.write(payload)
        connection.commit()


def _copy_text(events: list[dict[str, Any]]) -> bytes:
    """The events as COPY text rows: ID, eventTime, JSON. JSON holds no raw tab or newline,
    so doubling its backslashes is all the escaping COPY's text format needs."""
    return b"".join(
        b"%s\t%s\t%s\n"
        % (
            event_hash(event, NAMESPACES).encode(),
            event["eventTime"].encode(),
            orjson.dumps(event).replace(b"\\", b"\\\\"),
        )
        for event in events
    )


def sqlite_insert_floor(database_url: str, batch: int, total: int) -> float:
    """Events/s INSERTing the capture benchmark's documents durably, one transaction each."""
    rows = [[_sqlite_row(event) for event in events] for events in capture_documents(batch, total)]
    connection = sqlite3.connect(DatabaseUrl.parse(database_url).path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.executescript(SQLITE_TABLE)
        started = time.perf_counter()
        for document in rows:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany("INSERT INTO floor_event VALUES (?, ?, ?, ?)", document)
            connection.execute("COMMIT")
        elapsed = time.perf_counter() - started
    finally:
        connection.close()
    return len(rows) * batch / elapsed


def _sqlite_row(event: dict[str, Any]) -> tuple[str, int, str | None, str]:
    moment = datetime.fromisoformat(event["eventTime"].replace("Z", "+00:00"))
    return (
        event_hash(event, NAMESPACES),
        int(moment.timestamp() * 1000),
        event.get("bizStep"),
        orjson.dumps(event).decode(),
    )
