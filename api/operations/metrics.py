"""`/metrics`: the service's Prometheus metrics, switched and guarded as Directus's are.

Off unless METRICS_ENABLED (then 404, as if the route did not exist). On, it answers a
scraper sending one of METRICS_TOKENS (`Authorization: Bearer <token>`, or Directus's
`Metrics <token>`) and administrators; anyone else gets 403 FORBIDDEN.
"""

import asyncio
import hmac
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import datetime

from aiohttp import web
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from api.platform.keys import service
from api.platform.requests import client_ip, extract_token
from application.operations.monitoring import ServiceState
from application.service.errors import Forbidden, PlatformError
from application.service.runtime import Tracepoint

routes = web.RouteTableDef()

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: Methods named in the labels as they are; anything else is `other`, so a client
#: inventing methods cannot add series.
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "SEARCH"})
#: Subscription states whose cursor is still meant to move.
_FOLLOWING = frozenset({"active", "retrying"})


@routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    """The metrics in the Prometheus text format."""
    tracepoint = service(request)
    if not tracepoint.settings.metrics_enabled:
        raise web.HTTPNotFound()
    await _authorise(request, tracepoint)
    body = await tracepoint.blocking.run(_exposition, tracepoint)
    return web.Response(
        body=body,
        headers={
            "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
            "Cache-Control": "no-cache",
        },
    )


async def _authorise(request: web.Request, tracepoint: Tracepoint) -> None:
    """Let a metrics token or an administrator through; Forbidden for anyone else."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    sent = value.strip().encode()
    if scheme.lower() in ("bearer", "metrics") and sent:
        tokens = tracepoint.settings.metrics_token_list
        # Every token compared, in constant time: the answer tells nothing of how close.
        if sum(hmac.compare_digest(sent, t.encode()) for t in tokens):
            return
    try:
        caller = await tracepoint.access.authenticator.caller(
            extract_token(request), client_ip(request, tracepoint.settings.trust_proxy)
        )
    except PlatformError as exc:
        # A token that is neither a metrics token nor a valid session: Directus says 403.
        raise Forbidden() from exc
    if not caller.admin:
        raise Forbidden()


def _exposition(tracepoint: Tracepoint) -> bytes:
    """Read the state and write every metric (blocking: in the pool)."""
    return tracepoint.metrics.exposition(StateCollector(tracepoint.state.read()))


@web.middleware
async def request_metrics(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Count every request and its duration by route pattern, method and status."""
    started = time.perf_counter()
    status = 500
    try:
        response = await handler(request)
        status = response.status
        return response
    except web.HTTPException as exc:
        status = exc.status
        raise
    except asyncio.CancelledError:
        # The client went away first (nginx's 499).
        status = 499
        raise
    finally:
        service(request).metrics.observe_request(
            route_label(request),
            request.method if request.method in _METHODS else "other",
            status,
            time.perf_counter() - started,
        )


def route_label(request: web.Request) -> str:
    """The route's pattern (`/items/{collection}`), never the path sent: a label per item
    would make a series per item. Requests no route matched share `unmatched`."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else "unmatched"


class StateCollector(Collector):
    """The service's state, read for one scrape, as gauges."""

    def __init__(self, state: ServiceState) -> None:
        self._state = state

    def collect(self) -> Iterable[Metric]:
        """Every gauge the state has values for."""
        state = self._state
        yield from self._projections(state)
        yield from self._flows(state)
        yield from self._subscriptions(state)
        yield from self._codes(state)
        yield from self._pool(state)
        yield from self._replica_reads(state)
        unreadable = GaugeMetricFamily(
            "tracepoint_metrics_unreadable",
            "1 for each part of the state this scrape could not read (see the log).",
            labels=["part"],
        )
        for part in state.failed:
            unreadable.add_metric([part], 1)
        yield unreadable

    @staticmethod
    def _projections(state: ServiceState) -> Iterator[Metric]:
        if state.head is None or state.projections is None:
            return
        yield GaugeMetricFamily(
            "tracepoint_event_log_head_position",
            "Position of the newest event in the event log.",
            value=state.head,
        )
        position = GaugeMetricFamily(
            "tracepoint_projection_position",
            "Log position up to which the projection's tables are written.",
            labels=["projection"],
        )
        behind = GaugeMetricFamily(
            "tracepoint_projection_lag_positions",
            "Log positions the projection is behind the log's head.",
            labels=["projection"],
        )
        seconds = GaugeMetricFamily(
            "tracepoint_projection_lag_seconds",
            "Age of the oldest event the projection follows and has not applied yet "
            "(0: none waiting).",
            labels=["projection"],
        )
        for lag in state.projections:
            position.add_metric([lag.name], lag.position)
            behind.add_metric([lag.name], lag.positions_behind)
            seconds.add_metric([lag.name], lag.seconds_behind)
        yield from (position, behind, seconds)

    @staticmethod
    def _flows(state: ServiceState) -> Iterator[Metric]:
        if state.flows is None:
            return
        by_status = GaugeMetricFamily(
            "tracepoint_outbound_flows",
            "Outbound flows by status (`inactive`: switched off).",
            labels=["status"],
        )
        counts: dict[str, int] = dict.fromkeys(("idle", "running", "retrying", "error"), 0)
        for flow in state.flows:
            key = flow.status if flow.active else "inactive"
            counts[key] = counts.get(key, 0) + 1
        for status, count in counts.items():
            by_status.add_metric([status], count)
        yield by_status
        backlog = GaugeMetricFamily(
            "tracepoint_outbound_flow_backlog_events",
            "Events an active flow's query selects after its cursor, as of its last delivery.",
            labels=["flow"],
        )
        behind = GaugeMetricFamily(
            "tracepoint_outbound_flow_lag_positions",
            "Log positions an active flow's cursor is behind the head (an upper bound: "
            "events its query does not select count too).",
            labels=["flow"],
        )
        last_run = GaugeMetricFamily(
            "tracepoint_outbound_flow_last_run_timestamp_seconds",
            "When an active flow last ran (Unix time).",
            labels=["flow"],
        )
        processed = GaugeMetricFamily(
            "tracepoint_outbound_flow_processed_record_time_seconds",
            "Record time of the newest event an active flow delivered (Unix time); "
            "time() minus it is how far the partner is behind while a backlog waits.",
            labels=["flow"],
        )
        for flow in state.flows:
            if not flow.active:
                continue
            backlog.add_metric([flow.key], flow.backlog)
            if state.head is not None:
                behind.add_metric([flow.key], max(0, state.head - flow.last_position))
            for family, text in ((last_run, flow.last_run_at), (processed, flow.processed_until)):
                seconds = _unix_time(text)
                if seconds is not None:
                    family.add_metric([flow.key], seconds)
        yield from (backlog, behind, last_run, processed)

    @staticmethod
    def _subscriptions(state: ServiceState) -> Iterator[Metric]:
        if state.subscriptions is None:
            return
        by_status = GaugeMetricFamily(
            "tracepoint_subscriptions",
            "EPCIS subscriptions by status (`inactive`: stopped).",
            labels=["status"],
        )
        counts = dict.fromkeys(("active", "retrying", "error", "inactive"), 0)
        for row in state.subscriptions:
            counts[row.status] = counts.get(row.status, 0) + row.count
        for status, count in counts.items():
            by_status.add_metric([status], count)
        yield by_status
        following = [r.lowest_position for r in state.subscriptions if r.status in _FOLLOWING]
        if state.head is not None:
            yield GaugeMetricFamily(
                "tracepoint_subscription_lag_positions_max",
                "Log positions the furthest-behind active subscription's cursor is behind "
                "the head (an upper bound, as for flows).",
                value=max((max(0, state.head - p) for p in following), default=0),
            )
        if "subscription_lag" not in state.failed:
            waiting = state.subscription_waiting_since
            yield GaugeMetricFamily(
                "tracepoint_subscription_lag_seconds_max",
                "Age of the oldest event stored after the furthest-behind active or retrying "
                "subscription's cursor (0: nothing waits). An upper bound: it may be an "
                "event the subscription's query does not select.",
                value=max(0.0, (state.at - waiting).total_seconds()) if waiting else 0.0,
            )

    @staticmethod
    def _codes(state: ServiceState) -> Iterator[Metric]:
        if state.identifier_jobs is not None:
            jobs = GaugeMetricFamily(
                "tracepoint_identifier_jobs", "Identifier jobs by status.", labels=["status"]
            )
            requested = GaugeMetricFamily(
                "tracepoint_identifier_job_codes_requested",
                "Codes the identifier jobs of a status asked for.",
                labels=["status"],
            )
            created = GaugeMetricFamily(
                "tracepoint_identifier_job_codes_created",
                "Codes the identifier jobs of a status have created so far.",
                labels=["status"],
            )
            for row in state.identifier_jobs:
                jobs.add_metric([row.status], row.count)
                requested.add_metric([row.status], row.requested)
                created.add_metric([row.status], row.created)
            yield from (jobs, requested, created)
        if state.reservations is not None:
            reservations = GaugeMetricFamily(
                "tracepoint_code_reservations", "Code reservations by status.", labels=["status"]
            )
            for row in state.reservations:
                reservations.add_metric([row.status], row.count)
            yield reservations

    @staticmethod
    def _pool(state: ServiceState) -> Iterator[Metric]:
        pool = state.pool
        if pool is None:
            return
        connections = GaugeMetricFamily(
            "tracepoint_database_pool_connections",
            "Read-model database connections of this process, in use or idle.",
            labels=["state"],
        )
        connections.add_metric(["in_use"], pool.in_use)
        connections.add_metric(["idle"], pool.size - pool.in_use)
        yield connections
        yield GaugeMetricFamily(
            "tracepoint_database_pool_max_connections",
            "Connections the pool may open (TRACEPOINT_DATABASE_POOL_SIZE).",
            value=pool.max_size,
        )
        yield GaugeMetricFamily(
            "tracepoint_database_pool_waiting_requests",
            "Requests waiting for a connection of the full pool.",
            value=pool.waiting,
        )

    @staticmethod
    def _replica_reads(state: ServiceState) -> Iterator[Metric]:
        counts = state.replica_reads
        if counts is None:
            return
        reads = CounterMetricFamily(
            "tracepoint_replica_reads",
            "Routed read transactions of this process, by where they went: a replica "
            "(by its place in TRACEPOINT_DATABASE_REPLICA_URLS) or the primary.",
            labels=["target"],
        )
        for index, count in enumerate(counts.replica):
            reads.add_metric([f"replica-{index}"], count)
        reads.add_metric(["primary"], counts.primary)
        yield reads


def _unix_time(text: str | None) -> float | None:
    """A stored date-time (`2026-01-02T03:04:05.678Z`) as Unix time; None if there is none."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return None
