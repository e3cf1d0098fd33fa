"""Outbound flows: readers of the event log with a cursor, pushing what their named query
selects to a partner's EPCIS capture endpoint (spec §1, §2 epcis_outbound_flow, §6).

The cursor is a log position. Commit order equals log order, so every event up to the
read model's newest position is there to read, and a cursor on positions never skips an
event, whatever its record time. The cursor moves only after the partner answered 2xx,
by an event on the flow (with `max_record_time_processed` for people to read), saved
with the log entry of the delivery: a crash between push and save re-sends the batch,
and loses nothing.
"""

import base64
import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from application.access.accountability import AccessService
from application.access.event_scope import EventScope, EventScopes
from application.epcis.delivery import (
    DeliverySettings,
    Expand,
    OutboundGuard,
    backoff_delay,
    in_one_delivery,
    log_reader_query,
)
from application.operations.monitoring import Metrics, NoMetrics
from application.operations.service_records import change_record, live_record
from application.service.blocking import BlockingRunner, entered
from application.service.errors import Forbidden, as_unavailable
from domain.collections.coercion import format_datetime
from domain.epcis.event_query import EventQuery, QueryParameterError, parse_event_query
from domain.epcis.outbound import COMMISSIONING, all_referenced, capture_document
from domain.epcis.timestamps import timestamp_micros
from domain.masterdata.outbound_flows import EPCIS_OUTBOUND_FLOW, EPCIS_OUTBOUND_FLOW_RUN
from domain.records.record import Record
from infrastructure.database import Database
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.http_push import HttpPush, PushResult
from infrastructure.sql_conditions import chunks
from projections.epcis.event_reader import EpcisEventReader, PageRow

log = logging.getLogger(__name__)

FLOWS = EPCIS_OUTBOUND_FLOW.name
RUNS = EPCIS_OUTBOUND_FLOW_RUN.name
#: The events of a batch name EPCs; extra events are looked up this many EPCs at a time.
_EPCS_PER_LOOKUP = 200


@dataclass(frozen=True)
class RunSummary:
    """What one run of a flow did."""

    outcome: str
    sent: int = 0
    documents: int = 0
    http_status: int | None = None
    error: str | None = None
    last_position: int = 0
    backlog: int = 0


@dataclass(frozen=True)
class _Setup:
    """Where a flow sends, what it selects, what its owner may read."""

    url: str
    headers: dict[str, str]
    timeout: float
    query: EventQuery
    scope: EventScope
    packing: bool
    commissioning: bool


@dataclass
class _Batch:
    rows: list[PageRow]
    extras: list[PageRow] = field(default_factory=list)
    body: bytes = b""
    from_position: int = 0
    to_position: int = 0
    max_record_time: str | None = None

    @property
    def events(self) -> int:
        return len(self.rows) + len(self.extras)


class _Stop(Exception):
    """The flow cannot run as it is configured; the message says why."""


class OutboundFlows:
    """Runs the flows: on their intervals, and once on request."""

    def __init__(
        self,
        store: EventStore,
        database: Database,
        reader: EpcisEventReader,
        access: AccessService,
        http: HttpPush,
        guard: OutboundGuard,
        blocking: BlockingRunner,
        settings: DeliverySettings,
        expand: Expand,
        *,
        scopes: EventScopes,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        jitter: Callable[[], float] = random.random,
        metrics: Metrics | None = None,
    ) -> None:
        self._metrics = metrics or NoMetrics()
        self._store = store
        self._expand = expand
        self._scopes = scopes
        self._database = database
        self._reader = reader
        self._access = access
        self._http = http
        self._guard = guard
        self._blocking = blocking
        self.settings = settings
        self._clock = clock
        self._jitter = jitter
        #: Flow → when (time.monotonic) it runs next, and its failures in a row.
        self._due: dict[str, float] = {}
        self._failures: dict[str, int] = {}

    def hurry(self) -> None:
        """Run every flow at the next look, not at the end of its interval (a flow was
        switched on or moved back)."""
        self._due.clear()

    async def run_due(self) -> None:
        """Run every active flow whose interval (or retry delay) has passed."""
        for key, interval in await self._blocking.run(self._active):
            if self._due.get(key, 0.0) > time.monotonic():
                continue
            summary = await self.run(key)
            if summary.outcome == "sent" and summary.documents >= self.settings.batches_per_run:
                # More is waiting: the next look carries on, not the next interval.
                self._due[key] = 0.0
            elif summary.outcome != "retrying":
                self._due[key] = time.monotonic() + interval

    async def run(self, key: str) -> RunSummary:
        """Deliver what the flow has to deliver now, unless another worker runs it."""
        lock = self._database.try_exclusive(f"outbound-flow:{key}")
        async with entered(self._blocking, lock) as mine:
            if not mine:
                return RunSummary("busy")
            try:
                return await self._run(key)
            except Exception as exc:  # one broken flow must not hold up the others
                if as_unavailable(exc) is not None:
                    raise  # not the flow's failure: the database's, for the timer to wait out
                log.exception("outbound flow %s failed", key)
                self._metrics.delivery_failed("flow", "retrying")
                error = f"The run failed: {type(exc).__name__}: {exc}"
                delay = self._retry_later(key)
                await self._blocking.run(
                    self._set, key, {"status": "retrying", "last_error": error}
                )
                return RunSummary("retrying", error=f"{error} (next try in {delay:.0f} s)")

    async def _run(self, key: str) -> RunSummary:
        flow = await self._blocking.run(self._flow, key)
        if flow is None or not flow.values.get("active"):
            return RunSummary("inactive")
        try:
            setup = await self._setup(flow)
        except _Stop as exc:
            await self._blocking.run(self._stop, key, None, str(exc), None)
            return RunSummary("stopped", error=str(exc))
        sent = documents = 0
        summary = RunSummary("nothing")
        for _ in range(self.settings.batches_per_run):
            batch = await self._blocking.run(self._next_batch, key, setup)
            if batch is None:
                break
            started = self._now()
            if documents == 0:
                # Seen by whoever looks at the flow while the partner takes its time.
                await self._blocking.run(self._set, key, {"status": "running"})
            result = await self._http.post(setup.url, batch.body, setup.headers, setup.timeout)
            if result.accepted:
                position, backlog = await self._blocking.run(
                    self._advance, key, batch, result, started, setup
                )
                self._failures.pop(key, None)
                self._metrics.delivered("flow", batch.events)
                sent += batch.events
                documents += 1
                summary = RunSummary(
                    "sent", sent, documents, result.status, None, position, backlog
                )
                continue
            if result.refused:
                error = (
                    f"The partner refused the document with {result.status}: {result.body[:200]}"
                )
                await self._blocking.run(self._stop, key, batch, error, result, started)
                self._metrics.delivery_failed("flow", "stopped")
                return RunSummary("stopped", sent, documents, result.status, error)
            error = (
                f"The partner answered {result.status}: {result.body[:200]}"
                if result.status is not None
                else result.error or "no answer"
            )
            delay = self._retry_later(key)
            await self._blocking.run(self._retrying, key, batch, error, result, started, delay)
            self._metrics.delivery_failed("flow", "retrying")
            return RunSummary("retrying", sent, documents, result.status, error)
        return summary

    # -- setting up ------------------------------------------------------------------

    async def _setup(self, flow: Record) -> _Setup:
        values = flow.values
        connection = await self._blocking.run(
            self._record, "epcis_connection", values.get("connection")
        )
        if connection is None:
            raise _Stop("The flow has no connection; set one and set active to true")
        if not connection.get("active", True):
            raise _Stop(f'Connection "{connection.get("name")}" is not active')
        named = await self._blocking.run(self._record, "epcis_queries", values.get("epcis_query"))
        if named is None:
            raise _Stop("The flow has no named query (epcis_query); set one and set active to true")
        # The flow sends what the last user who set it up may read: whoever points it
        # at a partner cannot send more than they could read themselves.
        owner = values.get("user_updated") or values.get("user_created")
        caller = await self._access.of_user(owner) if owner else None
        if caller is None:
            raise _Stop(
                "The user who last changed the flow no longer exists (or is not active);"
                " only events a user may read are sent"
            )
        try:
            scope = await self._scopes.event_scope(caller, "read")
        except Forbidden as exc:
            raise _Stop(
                f"The user who last changed the flow may not read EPCIS events: {exc.message}"
            ) from exc
        try:
            # Read as its owner's /events reads it: their accounts' master data, no other.
            query = await log_reader_query(named.get("query") or {}, scope, self._expand)
        except QueryParameterError as exc:
            raise _Stop(f'Named query "{values.get("epcis_query")}" cannot run: {exc}') from exc
        refused = await self._guard.refusal(str(connection["url"]))
        if refused is not None:
            raise _Stop(f"The connection's url {refused}")
        return _Setup(
            url=str(connection["url"]),
            headers=_headers(connection),
            timeout=float(connection.get("timeout_seconds") or 30),
            query=query,
            scope=scope,
            packing=bool(values.get("send_packing_hierarchy")),
            commissioning=bool(values.get("send_commissioning_events")),
        )

    # -- reading ---------------------------------------------------------------------

    def _next_batch(self, key: str, setup: _Setup) -> _Batch | None:
        flow = self._flow(key)
        if flow is None:
            return None
        cursor = int(flow.values.get("last_position") or 0)
        snapshot, rows = self._reader.snapshot_and_page(
            setup.query, limit=self.settings.batch_size, after=(0, cursor), scope=setup.scope
        )
        if not rows:
            return None
        batch = _Batch(rows, from_position=cursor, to_position=rows[-1].position)
        batch.extras = self._extras(rows, setup, snapshot)
        everything = sorted([*rows, *batch.extras], key=lambda r: r.position)
        namespaces, events = in_one_delivery(everything)
        batch.body = capture_document(events, namespaces, self._now())
        record_times = [orjson.loads(r.document).get("recordTime") for r in rows]
        times = [t for t in record_times if isinstance(t, str)]
        batch.max_record_time = max(times, key=timestamp_micros) if times else None
        return batch

    def _extras(self, rows: list[PageRow], setup: _Setup, snapshot: int) -> list[PageRow]:
        """Aggregation events and commissioning events of the batch's EPCs that the query
        did not select, each once."""
        if not (setup.packing or setup.commissioning):
            return []
        epcs = sorted(all_referenced(orjson.loads(r.document) for r in rows))
        taken = {r.position for r in rows}
        extras: dict[int, PageRow] = {}
        for part in chunks(epcs, _EPCS_PER_LOOKUP):
            queries = []
            if setup.packing:
                queries.append({"eventType": ["AggregationEvent"], "MATCH_anyEPC": list(part)})
            if setup.commissioning:
                queries.append(
                    {
                        "eventType": ["ObjectEvent"],
                        "EQ_bizStep": list(COMMISSIONING),
                        "MATCH_epc": list(part),
                    }
                )
            for params in queries:
                for row in self._reader.page(
                    parse_event_query(params), limit=100_000, snapshot=snapshot, scope=setup.scope
                ):
                    if row.position not in taken:
                        extras[row.position] = row
        return [extras[p] for p in sorted(extras)]

    # -- writing ---------------------------------------------------------------------

    def _advance(
        self, key: str, batch: _Batch, result: PushResult, started: str, setup: _Setup
    ) -> tuple[int, int]:
        """Move the cursor past the batch and log the delivery, in one transaction; the
        new cursor and the backlog after it."""
        for _ in range(10):
            flow = self._flow(key)
            if flow is None:
                return batch.to_position, 0
            values = flow.values
            changes: dict[str, Any] = {"status": "idle", "last_error": None}
            # Moved by a client meanwhile (a replay asked for): theirs stands.
            if int(values.get("last_position") or 0) == batch.from_position:
                changes["last_position"] = batch.to_position
                changes["max_record_time_processed"] = _later(
                    values.get("max_record_time_processed"), batch.max_record_time
                )
            cursor = int(changes.get("last_position", values.get("last_position") or 0))
            changes["backlog"] = self._reader.count_after(
                setup.query, after=cursor, snapshot=self._reader.snapshot(), scope=setup.scope
            )
            changes["last_run_at"] = started
            flow.update(changes, None, self._now())
            run = self._run_record(key, batch, "sent", result, None, started)
            try:
                self._store.save(flow, run)
            except DuplicateAggregate:
                continue
            return cursor, int(changes["backlog"])
        raise RuntimeError(f"flow {key} kept changing")

    def _stop(
        self,
        key: str,
        batch: _Batch | None,
        error: str,
        result: PushResult | None,
        started: str | None = None,
    ) -> None:
        """Stop the flow until someone fixes it and sets active back to true."""
        self._change(
            key,
            {"active": False, "status": "error", "last_error": error, "last_run_at": started},
            self._run_record(key, batch, "stopped", result, error, started or self._now()),
        )

    def _retrying(
        self,
        key: str,
        batch: _Batch,
        error: str,
        result: PushResult,
        started: str,
        delay: float,
    ) -> None:
        self._change(
            key,
            {
                "status": "retrying",
                "last_error": f"{error} (next try in {delay:.0f} s)",
                "last_run_at": started,
            },
            self._run_record(key, batch, "retrying", result, error, started),
        )

    def _set(self, key: str, changes: dict[str, Any]) -> None:
        self._change(key, changes, None)

    def _change(self, key: str, changes: dict[str, Any], run: Record | None) -> None:
        change_record(self._store, FLOWS, key, changes, self._now(), *([run] if run else []))

    def _run_record(
        self,
        key: str,
        batch: _Batch | None,
        outcome: str,
        result: PushResult | None,
        error: str | None,
        started: str,
    ) -> Record:
        run = str(uuid.uuid4())
        values = {
            "id": run,
            "flow": key,
            "started_at": started,
            "finished_at": self._now(),
            "outcome": outcome,
            "events": batch.events if batch else 0,
            "http_status": result.status if result else None,
            "error": error,
            "from_position": batch.from_position if batch else None,
            "to_position": batch.to_position if batch else None,
        }
        return Record(RUNS, run, values, None, started)

    def _retry_later(self, key: str) -> float:
        """Exponential backoff with full jitter: the next try's delay in seconds."""
        failures = self._failures.get(key, 0) + 1
        self._failures[key] = failures
        delay = backoff_delay(
            failures, self.settings.retry_base, self.settings.retry_max, self._jitter()
        )
        self._due[key] = time.monotonic() + delay
        return delay

    # -- lookups ---------------------------------------------------------------------

    def _flow(self, key: str) -> Record | None:
        return live_record(self._store, FLOWS, key)

    def _record(self, collection: str, key: Any) -> dict[str, Any] | None:
        record = live_record(self._store, collection, key)
        return dict(record.values) if record is not None else None

    def _active(self) -> list[tuple[str, float]]:
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT id, interval_seconds FROM {FLOWS} WHERE active = 1 ORDER BY id"
            )
        return [(str(r[0]), float(r[1] or 60)) for r in rows]

    def _now(self) -> str:
        return format_datetime(self._clock())


def _headers(connection: dict[str, Any]) -> dict[str, str]:
    """The request headers: JSON, the connection's own, and its credentials."""
    headers = {"Content-Type": "application/json", "GS1-EPCIS-Version": "2.0.0"}
    extra = connection.get("headers")
    if isinstance(extra, dict):
        headers.update({str(k): str(v) for k, v in extra.items()})
    secret = connection.get("auth_secret") or ""
    kind = connection.get("auth_type") or "none"
    if kind == "bearer":
        headers["Authorization"] = f"Bearer {secret}"
    elif kind == "basic":
        pair = f"{connection.get('auth_username') or ''}:{secret}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    elif kind == "header":
        headers[str(connection.get("auth_header_name") or "Authorization")] = secret
    return headers


def _later(current: Any, candidate: str | None) -> Any:
    """The later of two record times (ISO 8601), either may be missing."""
    if candidate is None:
        return current
    if not current:
        return _as_datetime(candidate)
    if timestamp_micros(candidate) > timestamp_micros(str(current)):
        return _as_datetime(candidate)
    return current


def _as_datetime(value: str) -> str:
    """A record time as the flow's date-time field keeps it."""
    return format_datetime(datetime.fromtimestamp(timestamp_micros(value) / 1_000_000, UTC))
