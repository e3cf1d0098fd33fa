"""The read-model database: one connection pool and one SQL dialect seam for both backends.

SQL is written once, with `?` placeholders and `{name}` slots for the few type names
that differ; the dialect turns it into what SQLite or PostgreSQL expects.
"""

import hashlib
import queue
import select
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

import psycopg
from psycopg_pool import ConnectionPool

from infrastructure.database_url import DatabaseUrl
from infrastructure.pg_pool import connection_pool

if TYPE_CHECKING:
    from infrastructure.replicas import Replicas

Row = tuple[Any, ...]


class Dialect(Protocol):
    """What differs between SQLite and PostgreSQL in the SQL we write."""

    @property
    def name(self) -> str:
        """`sqlite` or `postgresql`."""
        ...

    @property
    def types(self) -> dict[str, str]:
        """Type names for `{slot}` substitution in DDL."""
        ...

    def render(self, sql: str) -> str:
        """Turn shared SQL into this dialect's SQL."""
        ...


@dataclass(frozen=True)
class _SQLite:
    name: str = "sqlite"

    @property
    def types(self) -> dict[str, str]:
        return {"key_text": "TEXT", "bigint": "INTEGER", "real": "REAL"}

    def render(self, sql: str) -> str:
        return _render_sqlite(sql)


@dataclass(frozen=True)
class _PostgreSQL:
    name: str = "postgresql"

    @property
    def types(self) -> dict[str, str]:
        # Byte-order collation makes prefix ranges on identifiers use the b-tree index.
        return {"key_text": 'TEXT COLLATE "C"', "bigint": "BIGINT", "real": "DOUBLE PRECISION"}

    def render(self, sql: str) -> str:
        return _render_postgresql(sql)


@lru_cache(maxsize=1024)
def _render_sqlite(sql: str) -> str:
    return sql.format(**_SQLite().types) if "{" in sql else sql


@lru_cache(maxsize=1024)
def _render_postgresql(sql: str) -> str:
    text = sql.format(**_PostgreSQL().types) if "{" in sql else sql
    return text.replace("%", "%%").replace("?", "%s")


SQLITE: Dialect = _SQLite()
POSTGRESQL: Dialect = _PostgreSQL()


#: Up to this many rows `insert_many` sends as one INSERT rather than a COPY.
_FEW_ROWS = 32


class Connection:
    """A database connection inside one transaction, speaking the shared SQL."""

    def __init__(self, raw: Any, dialect: Dialect) -> None:
        self._raw = raw
        self.dialect = dialect

    @property
    def raw(self) -> Any:
        """The driver's connection, for statements only one dialect has."""
        return self._raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        cursor = self._raw.execute(self.dialect.render(sql), params)
        return int(cursor.rowcount)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        rows = list(rows)
        if rows:
            self._raw.cursor().executemany(self.dialect.render(sql), rows)

    def insert_many(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Insert many rows at once: COPY on PostgreSQL, a prepared executemany on SQLite."""
        if not rows:
            return
        if self.dialect.name == "postgresql" and len(rows) <= _FEW_ROWS:
            # A COPY costs two round trips more than one INSERT of a few rows.
            marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
            self._raw.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
                + ", ".join([marks] * len(rows)),
                [value for row in rows for value in row],
            )
            return
        if self.dialect.name == "postgresql":
            # COPY moves bulk rows several times faster than even pipelined INSERTs.
            with self._raw.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        marks = ", ".join("?" * len(columns))
        self._raw.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def lock(self, name: str) -> None:
        """Make transactions that lock the same name take turns, until this one ends.

        PostgreSQL: a transaction-scoped advisory lock. SQLite needs nothing: its write
        transactions (BEGIN IMMEDIATE) already run one at a time.
        """
        if self.dialect.name == "postgresql":
            self._raw.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(name),))

    def lock_shared(self, name: str) -> None:
        """Wait while another transaction or session holds `name` exclusively (`lock`,
        `Database.exclusive`); holders of the shared lock do not wait for each other."""
        if self.dialect.name == "postgresql":
            self._raw.execute("SELECT pg_advisory_xact_lock_shared(%s)", (lock_key(name),))

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query."""
        return list(self._raw.execute(self.dialect.render(sql), params).fetchall())

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        row = self._raw.execute(self.dialect.render(sql), params).fetchone()
        return tuple(row) if row is not None else None

    def fetchval(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None."""
        row = self.fetchone(sql, params)
        return row[0] if row else None


def lock_key(name: str) -> int:
    """The 64-bit key of a PostgreSQL advisory lock named `name`."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def _enable_wal(path: str, seconds: float = 30.0) -> None:
    """Put a SQLite file in WAL mode once, before anyone else opens it for writing.

    Switching the journal mode ignores the busy timeout, so processes starting together
    on a new file would fail with "database is locked"; the first to succeed makes the
    switch permanent and the rest find it done.
    """
    if path == ":memory:":
        return
    deadline = time.monotonic() + seconds
    while True:
        conn = sqlite3.connect(path, timeout=seconds)
        try:
            if conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal":
                return
        except sqlite3.OperationalError:
            if time.monotonic() > deadline:
                raise
        finally:
            conn.close()
        if time.monotonic() > deadline:
            raise sqlite3.OperationalError(f"{path}: could not switch to WAL mode")
        time.sleep(0.01)


def _dropped_by_server(raw: psycopg.Connection[Any]) -> bool:
    """Whether an idle connection has something to read: on an idle session that is the
    server's termination notice or the end of the stream."""
    try:
        poller = select.poll()
        poller.register(raw.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, psycopg.Error):
        return True


def _unlock(raw: psycopg.Connection[Any], key: int) -> None:
    """Release a session advisory lock. A session that was lost (the server went away)
    released it with itself: the work it guarded, done by then, does not fail for that."""
    try:
        raw.execute("SELECT pg_advisory_unlock(%s)", (key,))
        raw.commit()
    except psycopg.OperationalError:
        if not raw.broken and not raw.closed:
            raise


@dataclass(frozen=True)
class PoolStats:
    """How the connection pool is used right now."""

    size: int
    in_use: int
    max_size: int
    waiting: int


class Database:
    """A pool of connections to the read-model database; each use is one transaction."""

    def __init__(
        self,
        url: DatabaseUrl,
        pool_size: int = 8,
    ) -> None:
        self.url = url
        self._closed = False
        #: Names this process holds through `try_exclusive`.
        self._held: set[str] = set()
        self._held_lock = threading.Lock()
        self._local_locks: dict[str, threading.Lock] = {}
        if url.backend == "sqlite":
            url.ensure_directory()
            _enable_wal(url.path)
            self.dialect: Dialect = SQLITE
            self._sqlite_pool: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
            self._sqlite_all: list[sqlite3.Connection] = []
            self._sqlite_lock = threading.Lock()
            self._pool_size = pool_size
            #: Threads waiting for a connection of the full pool (read by `pool_stats`).
            self._sqlite_waiting = 0
            self._pg_pool: ConnectionPool[psycopg.Connection[Any]] | None = None
        else:
            self.dialect = POSTGRESQL
            self._pg_pool = connection_pool(
                url,
                name="tracepoint-read-models",
                min_size=1,
                max_size=pool_size,
                # A health check or request fails within seconds when the server is gone,
                # instead of queueing for the default 30 s.
                timeout=5.0,
                connect_timeout=5,
            )
        #: Streaming replicas that routed reads may use (set by `Replicas.attach`).
        self.replicas: Replicas | None = None

    @contextmanager
    def _pg_connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection the server has not dropped.

        After a restart every idle connection is dead, and would fail its next statement
        (a 503 for a capture though the database is back). The server's goodbye (or the
        closed socket) is already waiting to be read on such a connection: a poll of the
        socket, not a round trip, tells; the pool then drops every dead one at once.
        """
        assert self._pg_pool is not None
        for attempt in range(2):
            with self._pg_pool.connection() as raw:
                if attempt == 0 and _dropped_by_server(raw):
                    raw.close()  # the pool discards a closed connection when it is returned
                else:
                    yield raw
                    return
            self._pg_pool.check()

    def _sqlite_connection(self) -> sqlite3.Connection:
        try:
            return self._sqlite_pool.get_nowait()
        except queue.Empty:
            pass
        with self._sqlite_lock:
            if len(self._sqlite_all) < self._pool_size:
                conn = sqlite3.connect(
                    self.url.path, timeout=30.0, isolation_level=None, check_same_thread=False
                )
                # WAL plus NORMAL is durable across application crashes; the event store
                # (FULL sync) is the record, the read models can be rebuilt from it.
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA busy_timeout=30000")
                self._sqlite_all.append(conn)
                return conn
            self._sqlite_waiting += 1
        try:
            return self._sqlite_pool.get(timeout=60)
        finally:
            with self._sqlite_lock:
                self._sqlite_waiting -= 1

    def pool_stats(self) -> PoolStats:
        """Connections open, in use and allowed, and requests waiting for one."""
        if self._pg_pool is not None:
            stats = self._pg_pool.get_stats()
            size = stats.get("pool_size", 0)
            return PoolStats(
                size=size,
                in_use=size - stats.get("pool_available", 0),
                max_size=stats.get("pool_max", 0),
                waiting=stats.get("requests_waiting", 0),
            )
        with self._sqlite_lock:
            size, waiting = len(self._sqlite_all), self._sqlite_waiting
        return PoolStats(size, size - self._sqlite_pool.qsize(), self._pool_size, waiting)

    @contextmanager
    def transaction(self, *, write: bool = True, durable: bool = True) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises.

        `durable=False` is for data that can be rebuilt (read models): the commit does not
        wait for the disk; a crash may lose the last such commits, never half of one.
        """
        if self._pg_pool is not None:
            with self._pg_connection() as raw, raw.transaction():
                if not durable:
                    raw.execute("SET LOCAL synchronous_commit = off")
                yield Connection(raw, self.dialect)
            return
        conn = self._sqlite_connection()
        try:
            if write:
                # FULL syncs the write-ahead log at each commit, as the event store needs;
                # NORMAL may lose the last commits to a power cut, never half of one.
                conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            # IMMEDIATE takes the write lock up front, so two writers queue instead of
            # failing with "database is locked" when the second tries to upgrade.
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield Connection(conn, self.dialect)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            self._sqlite_pool.put(conn)

    def reading(self) -> AbstractContextManager[Connection]:
        """A read-only transaction for a query: on a replica when `replicas` route it
        there (see `infrastructure.replicas`), else here."""
        if self.replicas is not None:
            return self.replicas.reading()
        return self.transaction(write=False)

    @contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """Hold a lock named `name` across every process using this database.

        PostgreSQL: a session advisory lock on a connection of its own. SQLite: a lock of
        this process (an SQLite file is served by one process).
        """
        if self._pg_pool is None:
            # One process per SQLite file: its threads take turns (a job's read and
            # write are separate transactions, which the file's own lock does not join).
            with self._held_lock:
                local = self._local_locks.setdefault(name, threading.Lock())
            with local:
                yield
            return
        key = lock_key(name)
        with self._pg_connection() as raw:
            raw.execute("SELECT pg_advisory_lock(%s)", (key,))
            try:
                yield
            finally:
                _unlock(raw, key)

    @contextmanager
    def try_exclusive(self, name: str) -> Iterator[bool]:
        """Like `exclusive`, but yields False at once when someone holds the lock: for work
        that any one process may do (a background job), not all of them in turn."""
        with self._held_lock:
            if name in self._held:
                mine = False
            else:
                self._held.add(name)
                mine = True
        if not mine:
            yield False
            return
        try:
            if self._pg_pool is None:
                yield True
                return
            key = lock_key(name)
            with self._pg_connection() as raw:
                got = raw.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                raw.commit()
                if not got or not got[0]:
                    yield False
                    return
                try:
                    yield True
                finally:
                    _unlock(raw, key)
        finally:
            with self._held_lock:
                self._held.discard(name)

    def analyze(self, tables: Sequence[str]) -> None:
        """Refresh the query planner's statistics of these tables (PostgreSQL).

        Without them PostgreSQL guesses selectivities and may walk a primary key for a
        page of 30 rows instead of using a selective index: 200 ms instead of 1 ms at a
        million events. Autovacuum would do this, but it may be switched off. SQLite's
        planner picks well by its own rules (p95 ≤ 5 ms at a million events); its
        sampled statistics measured no better, so SQLite is left without.
        """
        if self._pg_pool is None:
            return
        with self._pg_pool.connection() as raw:
            raw.execute(f"ANALYZE {', '.join(tables)}")

    def drop_broken_connections(self) -> None:
        """Test the idle pooled connections and replace those that no longer work (after
        an outage), so the next transaction gets a live one (PostgreSQL)."""
        if self._pg_pool is not None and not self._closed:
            self._pg_pool.check()

    def ping(self) -> None:
        """Raise if the database cannot answer a trivial query."""
        with self.transaction(write=False) as conn:
            conn.fetchval("SELECT 1")

    def close(self) -> None:
        """Close every connection."""
        if self._closed:
            return
        self._closed = True
        if self.replicas is not None:
            self.replicas.close()
        if self._pg_pool is not None:
            self._pg_pool.close()
        else:
            for conn in self._sqlite_all:
                conn.close()
            self._sqlite_all.clear()
