"""The read-model database: one connection pool for both backends, handing out
`Connection`s that speak the shared SQL (`sql_dialect`)."""

import queue
import select
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg_pool import ConnectionPool

from infrastructure.connection import Connection, lock_key
from infrastructure.database_url import DatabaseUrl
from infrastructure.pg_pipeline import in_autocommit, pipelined_transaction
from infrastructure.pg_pool import connection_pool
from infrastructure.sql_dialect import POSTGRESQL, SQLITE, Dialect

if TYPE_CHECKING:
    from infrastructure.replicas import Replicas


#: WAL pages between SQLite's automatic checkpoints (its default is 1,000, 4 MB): a capture
#: rewrites the same hot index pages of the query tables, and each checkpoint copies them
#: back into the file, so fewer checkpoints copy each page fewer times.
WAL_PAGES_BETWEEN_CHECKPOINTS = 10_000


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
                conn.execute(f"PRAGMA wal_autocheckpoint={WAL_PAGES_BETWEEN_CHECKPOINTS}")
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
    def transaction(
        self, *, write: bool = True, durable: bool = True, pipelined: bool = False
    ) -> Iterator[Connection]:
        """One transaction: committed when the block ends, rolled back if it raises.

        `durable=False` is for data that can be rebuilt (read models): the commit does not
        wait for the disk; a crash may lose the last such commits, never half of one.
        `pipelined` (PostgreSQL) sends statements without waiting for each answer
        (`Connection.send`, `sync`): for short transactions of many statements, since
        `insert_many` then INSERTs where it would COPY.
        """
        if self._pg_pool is not None and pipelined:
            with self._pg_connection() as raw, pipelined_transaction(raw) as (pipeline, quiet):
                in_pipeline = Connection(raw, self.dialect, pipeline, quiet, self.url.schema)
                if not durable:
                    in_pipeline.send("SET LOCAL synchronous_commit = off")
                yield in_pipeline
                in_pipeline.run_before_commit()
            return
        if self._pg_pool is not None:
            with self._pg_connection() as raw, raw.transaction():
                in_transaction = Connection(
                    raw, self.dialect, quiet=raw.cursor(), schema=self.url.schema
                )
                if not durable:
                    in_transaction.send("SET LOCAL synchronous_commit = off")
                yield in_transaction
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
                yield Connection(conn, self.dialect, schema=self.url.schema)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            self._sqlite_pool.put(conn)

    def reading(self, *, transaction: bool = True) -> AbstractContextManager[Connection]:
        """A read-only transaction for a query: on a replica when `replicas` route it
        there (see `infrastructure.replicas`), else here.

        `transaction=False`, for readers that set nothing for their transaction: on
        PostgreSQL here, each statement is a transaction of its own, as READ COMMITTED
        gives each statement its own snapshot anyway; BEGIN and COMMIT were two of a
        simple query's four round trips. (SQLite keeps one snapshot for all of them.)
        """
        if self.replicas is not None:
            return self.replicas.reading()
        if not transaction and self._pg_pool is not None:
            return self._statements()
        return self.transaction(write=False)

    @contextmanager
    def _statements(self) -> Iterator[Connection]:
        """A pooled PostgreSQL connection whose statements commit one by one."""
        with self._pg_connection() as raw, in_autocommit(raw):
            yield Connection(raw, self.dialect, quiet=raw.cursor(), schema=self.url.schema)

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
        key = lock_key(name, self.url.schema)
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
            key = lock_key(name, self.url.schema)
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
        """Refresh the query planner's statistics of these tables and their visibility
        maps (PostgreSQL: `VACUUM (ANALYZE)`).

        Without statistics PostgreSQL guesses selectivities and may walk a primary key for
        a page of 30 rows instead of using a selective index: 200 ms instead of 1 ms at a
        million events. Without a vacuum an index-only scan still visits the table for
        every row it reads: one carrier's events ordered by a field, 217 → 168 ms at a
        million events. Autovacuum would do both, but it may be switched off; on tables
        that are only appended to, the vacuum reads the pages added since the last one
        (1.5 s at a million events). SQLite's planner picks well by its own rules; its
        sampled statistics measured no better, so SQLite is left without.
        """
        if self._pg_pool is None:
            return
        with self._pg_pool.connection() as raw:
            # VACUUM runs outside a transaction; the pooled connection is given back as
            # it was lent.
            autocommit, raw.autocommit = raw.autocommit, True
            try:
                raw.execute(f"VACUUM (ANALYZE) {', '.join(tables)}")
            finally:
                raw.autocommit = autocommit

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
