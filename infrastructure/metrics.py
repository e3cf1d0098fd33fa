"""Prometheus counters and histograms of one service instance, in a registry of its own.

Not the client's global registry: tests start many services in one process, and each
must count only its own requests and captures.
"""

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

#: Seconds: from a ping's milliseconds to a large capture's minute.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST

# A `_created` timestamp beside every counter and histogram series doubles what is
# scraped and tells nothing a restart does not (the service is the only user here).
disable_created_metrics()  # type: ignore[no-untyped-call]


class PrometheusMetrics:
    """What happens in the service, counted where it happens (the application's `Metrics`
    port), plus the HTTP requests the API observes."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self._requests = Counter(
            "tracepoint_http_requests",
            "HTTP requests answered, by route pattern, method and status.",
            ("route", "method", "status"),
            registry=registry,
        )
        self._latency = Histogram(
            "tracepoint_http_request_duration_seconds",
            "Time to answer an HTTP request, by route pattern, method and status.",
            ("route", "method", "status"),
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self._request_series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self._captures = Counter(
            "tracepoint_captures",
            "Capture requests that stored (EPCIS documents and single events).",
            registry=registry,
        )
        self._capture_events = Counter(
            "tracepoint_capture_events",
            "Events of stored captures: stored (new, error declarations included), "
            "already_present, or rejected (proceed mode).",
            ("result",),
            registry=registry,
        )
        self._rejections = Counter(
            "tracepoint_capture_rejections",
            "Capture requests refused as a whole, by reason.",
            ("reason",),
            registry=registry,
        )
        self._delivered_documents = Counter(
            "tracepoint_delivery_documents",
            "Documents outbound flows and subscriptions delivered (the receiver answered 2xx).",
            ("kind",),
            registry=registry,
        )
        self._delivered_events = Counter(
            "tracepoint_delivery_events",
            "Events outbound flows and subscriptions delivered.",
            ("kind",),
            registry=registry,
        )
        self._delivery_failures = Counter(
            "tracepoint_delivery_failures",
            "Failed deliveries: retrying (tried again later) or stopped (deactivated).",
            ("kind", "outcome"),
            registry=registry,
        )
        self._codes = Counter(
            "tracepoint_codes_created",
            "Codes identifier jobs created in this process.",
            registry=registry,
        )
        for result in ("stored", "already_present", "rejected"):
            self._capture_events.labels(result)
        for kind in ("flow", "subscription"):
            self._delivered_documents.labels(kind)
            self._delivered_events.labels(kind)

    # -- the application's Metrics port ----------------------------------------------

    def captured(self, stored: int, already_present: int, rejected: int) -> None:
        """A capture stored: its events by what became of them."""
        self._captures.inc()
        events = self._capture_events
        for result, count in (
            ("stored", stored),
            ("already_present", already_present),
            ("rejected", rejected),
        ):
            if count:
                events.labels(result).inc(count)

    def capture_rejected(self, reason: str) -> None:
        """A capture request refused as a whole."""
        self._rejections.labels(reason).inc()

    def delivered(self, kind: str, events: int) -> None:
        """A flow or subscription delivered a document of `events` events."""
        self._delivered_documents.labels(kind).inc()
        self._delivered_events.labels(kind).inc(events)

    def delivery_failed(self, kind: str, outcome: str) -> None:
        """A flow or subscription delivery failed: `retrying` or `stopped`."""
        self._delivery_failures.labels(kind, outcome).inc()

    def codes_created(self, count: int) -> None:
        """An identifier job wrote a chunk of `count` codes."""
        self._codes.inc(count)

    # -- the API's side --------------------------------------------------------------

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        """An HTTP request answered."""
        key = (route, method, status)
        series = self._request_series.get(key)
        if series is None:
            # Looking the labelled series up costs more than counting in them: once each.
            labels = (route, method, str(status))
            series = self._requests.labels(*labels), self._latency.labels(*labels)
            self._request_series[key] = series
        series[0].inc()
        series[1].observe(seconds)

    def exposition(self, *collectors: Collector) -> bytes:
        """The text format of this registry's metrics and of `collectors`' (which read
        the service's state now, and may block on the database)."""
        text = generate_latest(self.registry)
        if collectors:
            now = CollectorRegistry(auto_describe=False)
            for collector in collectors:
                now.register(collector)
            text += generate_latest(now)
        return text
