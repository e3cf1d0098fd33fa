"""Reads on PostgreSQL streaming replicas, without losing read-your-writes.

A read is sent to a replica only inside a routed read (`routed_read`) and only when that
replica has replayed the WAL past the caller's last write and lags less than a bound;
otherwise, and whenever a replica cannot be reached, it goes to the primary. One routed
read (one request) stays on the replica it first used: replay only moves forward, so its
later statements never see less than its first ones. A statement that fails on the
replica marks the routed read failed, for its caller to run it again on the primary.
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

from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from infrastructure.outages import is_database_unavailable
from infrastructure.pg_pool import connection_pool

log = logging.getLogger(__name__)

#: The application_name of Tracepoint's sessions on replicas.
APPLICATION_NAME = "tracepoint-replica-reads"

#: Seconds a replica that could not be reached is left alone before it is tried again.
RETRY_DOWN_AFTER = 10.0

#: Where the replica has replayed to, whether its WAL receiver streams from the primary,
#: whether it has replayed all it received, and seconds since its last replayed commit.
_CHECK = (
    "SELECT pg_last_wal_replay_lsn()::text,"
    " EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming'),"
    " pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(),"
    " EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())"
)

#: Seconds the primary's WAL position is reused before it is asked again.
PRIMARY_POSITION_TTL = 1.0

#: SQLSTATEs of a standby cancelling a read that conflicts with the WAL it replays.
_RECOVERY_CONFLICTS = frozenset({"40001", "40P01"})


def lsn(text: str) -> int:
    """A WAL position (`16/B374D848`) as a number, for comparing."""
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


@dataclass
class ReadRoute:
    """One routed read: the WAL position the caller last wrote up to (None: never), and
    where its statements go once the first one has chosen (-1: the primary)."""

    after: str | None
    target: int | None = None
    #: A statement failed on the replica: the read must run again on the primary.
    failed: bool = False
    #: Routable, but to be served by the primary (counted there).
    primary_only: bool = False


#: The routed read this context is in, if any: outside one every read uses the primary.
_ROUTE: ContextVar[ReadRoute | None] = ContextVar("tracepoint_read_route", default=None)


@contextlib.contextmanager
def routed_read(after: str | None, *, primary_only: bool = False) -> Iterator[ReadRoute]:
    """Let the reads of this context go to a replica that has replayed past `after`
    (`primary_only`: to none, but count them as routed reads the primary served)."""
    route = ReadRoute(after, primary_only=primary_only)
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
    """Connection pools to the replicas of a primary, and the choice of one for a routed
    read."""

    def __init__(
        self, primary: Database, urls: Sequence[DatabaseUrl], pool_size: int, max_lag: float
    ) -> None:
        self._primary = primary
        self._max_lag = max_lag
        self._urls = tuple(urls)
        self._pools = [
            connection_pool(
                url,
                name=f"tracepoint-replica-{index}",
                min_size=0,
                max_size=pool_size,
                # A replica that does not answer at once is skipped, not waited for.
                timeout=1.0,
                connect_timeout=2,
                application_name=APPLICATION_NAME,
                # Transactions are begun READ ONLY and ended by hand.
                autocommit=True,
                # A session the replica dropped while idle is replaced, not handed out.
                check_idle=True,
            )
            for index, url in enumerate(urls)
        ]
        self._down_until = [0.0] * len(urls)
        self._lock = threading.Lock()
        self._primary_position: tuple[float, int] | None = None
        self.counts = ReplicaCounts(replica=[0] * len(urls))

    @classmethod
    def attach(
        cls, primary: Database, urls: Sequence[DatabaseUrl], pool_size: int, max_lag: float
    ) -> None:
        """Let `primary`'s reads go to these replicas (none: nothing changes)."""
        if urls:
            primary.replicas = cls(primary, urls, pool_size, max_lag)

    def __len__(self) -> int:
        return len(self._pools)

    @contextlib.contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read-only transaction: on a replica inside a routed read when one has caught
        up with the caller, else on the primary. A statement that fails on the replica
        marks the route failed (see `ReadRoute.failed`) and raises."""
        route = current_route()
        if route is not None and route.target != -1:
            with self.connection(route) as raw:
                if raw is not None:
                    yield Connection(raw, self._primary.dialect, schema=self._primary.url.schema)
                    return
        with self._primary.transaction(write=False) as conn:
            yield conn

    @contextlib.contextmanager
    def connection(self, route: ReadRoute) -> Iterator[Any | None]:
        """A raw connection in a read-only transaction on a replica fit for `route`, or
        None when the read must go to the primary (and the route remembers that)."""
        if route.primary_only:
            candidates: Sequence[int] = ()
        elif route.target is None:
            candidates = range(len(self._pools))
        else:
            candidates = (route.target,)
        for index in candidates:
            if index < 0 or self._down_until[index] > time.monotonic():
                continue
            with self._try(index, route.after) as raw:
                if raw is not None:
                    route.target = index
                    with self._lock:
                        self.counts.replica[index] += 1
                    try:
                        yield raw
                    except psycopg.Error:
                        # Later statements of this read, and its rerun, use the primary.
                        route.target, route.failed = -1, True
                        raise
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
                row = raw.execute(_CHECK).fetchone()
            except psycopg.Error as exc:
                with contextlib.suppress(psycopg.Error):
                    raw.execute("ROLLBACK")
                self._mark_down(index, exc)
                yield None
                return
            if not self._fit(row, after):
                raw.execute("ROLLBACK")
                yield None
                return
            try:
                yield raw
            except psycopg.Error as exc:
                self._read_failed(index, raw, exc)
                raise
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    raw.execute("ROLLBACK")
                raise
            try:
                raw.execute("COMMIT")
            except psycopg.Error as exc:  # the rows were read: only the replica is at fault
                self._mark_down(index, exc)
        finally:
            pool.putconn(raw)

    def _fit(self, row: Any, after: str | None) -> bool:
        """Whether a replica in this state (see `_CHECK`) may serve a read after `after`."""
        if not row or row[0] is None:
            return False
        replayed, streaming, drained, since = row
        if after is not None and lsn(replayed) < lsn(after):
            return False
        if streaming and drained:
            return True  # caught up with a live stream: no lag, however old the last commit
        if not streaming:
            # Cut off from the primary (or just restarted): what it received says nothing;
            # it is current only if it has replayed what the primary had a moment ago.
            primary = self._primary_lsn()
            if primary is None:
                return False
            fetched_at, position = primary
            if lsn(replayed) >= position:
                return time.monotonic() - fetched_at <= self._max_lag
        # Behind: everything committed before its last replayed commit is there, so it
        # lags by at most the time since then.
        return since is not None and float(since) <= self._max_lag

    def _primary_lsn(self) -> tuple[float, int] | None:
        """When, and the primary's WAL end then, asked at most once a `PRIMARY_POSITION_TTL`."""
        cached = self._primary_position
        if cached is not None and time.monotonic() - cached[0] < PRIMARY_POSITION_TTL:
            return cached
        try:
            with self._primary.transaction(write=False) as conn:
                value = conn.fetchval("SELECT pg_current_wal_lsn()::text")
        except psycopg.Error:  # the primary is away: the replica cannot be judged
            return None
        self._primary_position = (time.monotonic(), lsn(str(value)))
        return self._primary_position

    def _read_failed(self, index: int, raw: Any, exc: psycopg.Error) -> None:
        with contextlib.suppress(psycopg.Error):
            raw.execute("ROLLBACK")
        if exc.sqlstate in _RECOVERY_CONFLICTS:
            # The replica is well (even when it ended the session): only this read moves.
            log.info(
                "replica %s cancelled a read (%s); it runs on the primary",
                _where(self._urls[index]),
                exc.sqlstate,
            )
        elif raw.broken or raw.closed or is_database_unavailable(exc):
            self._mark_down(index, exc)

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
