"""What the service tells its monitoring: the `Metrics` port the use cases count events
through, and the state a scrape reads (projection lag, background work, the pool).

The application knows no metrics library: an adapter (infrastructure/metrics.py)
implements the port, and the API renders the state in the Prometheus format.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from application.operations.outages import OutageWatch
from infrastructure.database import Database, PoolStats
from infrastructure.replicas import ReplicaCounts
from projections.monitoring import FlowRow, MonitoringReader, StatusRow, SubscriptionRow
from projections.runner import ProjectionLag, ProjectionRunner

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The subscription statuses that still deliver (the others are switched off).
FOLLOWING = frozenset({"active", "retrying"})


class Metrics(Protocol):
    """Counts what happens, where it happens."""

    def captured(self, stored: int, already_present: int, rejected: int) -> None:
        """A capture stored: its events by what became of them."""

    def capture_rejected(self, reason: str) -> None:
        """A capture request refused as a whole (validation, conflict, size, ...)."""

    def delivered(self, kind: str, events: int) -> None:
        """A flow or subscription (`kind`) delivered a document of `events` events."""

    def delivery_failed(self, kind: str, outcome: str) -> None:
        """A flow or subscription delivery failed: `retrying` or `stopped`."""

    def codes_created(self, count: int) -> None:
        """An identifier job wrote `count` codes."""


class NoMetrics:
    """Counts nothing: for use cases built without monitoring."""

    def captured(self, stored: int, already_present: int, rejected: int) -> None:
        """Nothing."""

    def capture_rejected(self, reason: str) -> None:
        """Nothing."""

    def delivered(self, kind: str, events: int) -> None:
        """Nothing."""

    def delivery_failed(self, kind: str, outcome: str) -> None:
        """Nothing."""

    def codes_created(self, count: int) -> None:
        """Nothing."""


@dataclass(frozen=True)
class ServiceState:
    """The service as a scrape sees it. A part that could not be read is None and named
    in `failed`, so one unreachable table does not hide the rest."""

    at: datetime
    head: int | None = None
    projections: list[ProjectionLag] | None = None
    flows: list[FlowRow] | None = None
    subscriptions: list[SubscriptionRow] | None = None
    #: Record time of the oldest event after the furthest-behind cursor of an active or
    #: retrying subscription (None: nothing waits, or it could not be read).
    subscription_waiting_since: datetime | None = None
    identifier_jobs: list[StatusRow] | None = None
    reservations: list[StatusRow] | None = None
    pool: PoolStats | None = None
    #: Routed reads served by each replica and by the primary (None: no replicas).
    replica_reads: ReplicaCounts | None = None
    failed: list[str] = field(default_factory=list)


class StateReader:
    """Reads the service's state for a scrape (blocking: run it off the event loop)."""

    def __init__(
        self,
        runner: ProjectionRunner,
        database: Database,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._runner = runner
        self._database = database
        self._reader = MonitoringReader(database)
        self._clock = clock
        self._outage = OutageWatch("metrics")

    def read(self) -> ServiceState:
        """Every part of the state that can be read now."""
        now = self._clock()
        scrape = _Scrape()
        lag = self._part("projections", lambda: self._runner.lag(now), scrape)
        subscriptions = self._part("subscriptions", self._reader.subscriptions, scrape)
        waiting = None
        if subscriptions is not None:
            waiting = self._part(
                "subscription_lag", lambda: self._waiting_since(subscriptions), scrape
            )
        return ServiceState(
            at=now,
            head=lag[0] if lag else None,
            projections=lag[1] if lag else None,
            flows=self._part("flows", self._reader.flows, scrape),
            subscriptions=subscriptions,
            subscription_waiting_since=waiting,
            identifier_jobs=self._part("identifier_jobs", self._reader.identifier_jobs, scrape),
            reservations=self._part("reservations", self._reader.reservations, scrape),
            # The pool's own counters: no query, readable during an outage too.
            pool=self._part("database_pool", self._database.pool_stats, scrape, queries=False),
            replica_reads=self._replica_reads(),
            failed=scrape.failed,
        )

    def _waiting_since(self, rows: list[SubscriptionRow]) -> datetime | None:
        following = [r.lowest_position for r in rows if r.status in FOLLOWING]
        if not following:
            return None
        micros = self._reader.first_record_time_after(min(following))
        return None if micros is None else datetime.fromtimestamp(micros / 1e6, UTC)

    def _replica_reads(self) -> ReplicaCounts | None:
        replicas = self._database.replicas
        if replicas is None:
            return None
        counts = replicas.counts
        return ReplicaCounts(list(counts.replica), counts.primary)

    def _part(
        self, name: str, read: Callable[[], T], scrape: "_Scrape", queries: bool = True
    ) -> T | None:
        """`read()`, or None with `name` noted as failed; `queries`: it asks the database."""
        if queries and scrape.database_down:
            # Each part would wait the pool's timeout in turn: longer than a scrape may take.
            scrape.failed.append(name)
            return None
        try:
            found = read()
        except Exception as exc:  # a scrape reports what it could not read, and carries on
            scrape.failed.append(name)
            if queries and self._outage.failed(exc):  # one line per outage, not per scrape
                scrape.database_down = True
            else:
                log.warning("metrics: reading %s failed", name, exc_info=True)
            return None
        if queries:
            self._outage.succeeded()  # the end of an outage, logged once
        return found


@dataclass
class _Scrape:
    """One scrape's parts that could not be read, and whether the database is down."""

    failed: list[str] = field(default_factory=list)
    database_down: bool = False
