"""Reads on PostgreSQL streaming replicas, without losing read-your-writes.

A read is sent to a replica only inside a routed read (`routed_read`) and only when that
replica has replayed the WAL past the caller's last write and lags less than a bound;
otherwise, and whenever a replica cannot be reached, it goes to the primary. One routed
read (one request) stays on the replica it first used: replay only moves forward, so its
later statements never see less than its first ones.
"""

import contextlib
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from infrastructure.database_url import DatabaseUrl

log = logging.getLogger(__name__)

#: The application_name of Tracepoint's sessions on replicas.
APPLICATION_NAME = "tracepoint-replica-reads"

#: Seconds a replica that could not be reached is left alone before it is tried again.
RETRY_DOWN_AFTER = 10.0

_CHECK = (
    "SELECT %s::pg_lsn IS NULL OR pg_last_wal_replay_lsn() >= %s::pg_lsn,"
    # Caught up with what it received: no lag, however long ago the last commit was.
    " CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0"
    " ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)


@dataclass
class ReadRoute:
    """One routed read: the WAL position the caller last wrote up to (None: never), and
    where its statements go once the first one has chosen (-1: the primary)."""

    after: str | None
    target: int | None = None


#: The routed read this context is in, if any: outside one every read uses the primary.
_ROUTE: ContextVar[ReadRoute | None] = ContextVar("tracepoint_read_route", default=None)


@contextlib.contextmanager
def routed_read(after: str | None) -> Iterator[ReadRoute]:
    """Let the reads of this context go to a replica that has replayed past `after`."""
    route = ReadRoute(after)
    token = _ROUTE.set(route)
    try:
        yield route
    finally:
        _ROUTE.reset(token)


def current_route() -> ReadRoute | None:
    """The routed read this context is in, or None."""
    return _ROUTE.get()


@dataclass
class ReplicaCounts:
    """Reads served per place since start: for tests and metrics."""

    replica: list[int] = field(default_factory=list)
    primary: int = 0


class Replicas:
    """Connection pools to the replicas, and the choice of one for a routed read."""

    def __init__(self, urls: Sequence[DatabaseUrl], pool_size: int, max_lag: float) -> None:
        self._max_lag = max_lag
        self._urls = tuple(urls)
        self._pools = [
            ConnectionPool(
                conninfo=psycopg.conninfo.make_conninfo(
                    host=url.host,
                    port=url.port,
                    user=url.user,
                    password=url.password or None,
                    dbname=url.dbname,
                    connect_timeout=2,
                    options=f"-c search_path={url.schema}",
                    # Names the sessions in the replica's pg_stat_activity.
                    application_name=APPLICATION_NAME,
                ),
                min_size=0,
                max_size=pool_size,
                # A replica that does not answer at once is skipped, not waited for.
                timeout=1.0,
                check=ConnectionPool.check_connection,
                # Transactions are begun READ ONLY and ended by hand.
                kwargs={"autocommit": True},
                open=True,
                name=f"tracepoint-replica-{index}",
            )
            for index, url in enumerate(urls)
        ]
        self._down_until = [0.0] * len(urls)
        self._lock = threading.Lock()
        self.counts = ReplicaCounts(replica=[0] * len(urls))

    def __len__(self) -> int:
        return len(self._pools)

    @contextlib.contextmanager
    def connection(self, route: ReadRoute) -> Iterator[Any | None]:
        """A raw connection in a read-only transaction on a replica fit for `route`, or
        None when the read must go to the primary (and the route remembers that)."""
        candidates = range(len(self._pools)) if route.target is None else (route.target,)
        for index in candidates:
            if index < 0 or self._down_until[index] > time.monotonic():
                continue
            with self._try(index, route.after) as raw:
                if raw is not None:
                    route.target = index
                    with self._lock:
                        self.counts.replica[index] += 1
                    yield raw
                    return
        route.target = -1
        with self._lock:
            self.counts.primary += 1
        yield None

    @contextlib.contextmanager
    def _try(self, index: int, after: str | None) -> Iterator[Any | None]:
        pool = self._pools[index]
        try:
            raw = pool.getconn()
        except Exception as exc:  # unreachable, refusing, too slow: the primary answers
            self._mark_down(index, exc)
            yield None
            return
        try:
            try:
                raw.execute("BEGIN READ ONLY")
                row = raw.execute(_CHECK, (after, after)).fetchone()
            except psycopg.Error as exc:
                with contextlib.suppress(psycopg.Error):
                    raw.execute("ROLLBACK")
                self._mark_down(index, exc)
                yield None
                return
            if not row or not row[0] or float(row[1] or 0) > self._max_lag:
                raw.execute("ROLLBACK")
                yield None
                return
            try:
                yield raw
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")
        finally:
            pool.putconn(raw)

    def _mark_down(self, index: int, exc: BaseException) -> None:
        if self._down_until[index] <= time.monotonic():
            log.warning(
                "replica %s unreachable (%s); reading from the primary for %.0f s",
                _where(self._urls[index]),
                f"{type(exc).__name__}: {exc}".strip(),
                RETRY_DOWN_AFTER,
            )
        self._down_until[index] = time.monotonic() + RETRY_DOWN_AFTER

    def close(self) -> None:
        """Close every replica connection."""
        for pool in self._pools:
            pool.close()


def _where(url: DatabaseUrl) -> str:
    """A replica's address without its password."""
    return f"{url.host}:{url.port}/{url.dbname}"
