"""A database outage while the service runs: PostgreSQL stopped in the middle of captures,
queries, health checks and a flow's deliveries, then started again.

One outage, on a cluster of the module's own (never the shared one), is recorded once;
each test reads one behaviour off the recording. SQLite has no outage of this kind.
"""

import asyncio
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg
import pytest
from aiohttp.test_utils import TestClient, TestServer

from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.conftest import AS_CAPTURED, AUTH, make_settings
from tests.epcis.documents import document, object_event
from tests.flows.helpers import flow_to
from tests.flows.partner import Partner, running_partner
from tests.pg_cluster import Cluster

#: One worker records the outage for every test (a module fixture is made once a worker).
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("outage")]

#: How long the database is down: longer than a request waits for a connection (5 s),
#: or the requests would wait the outage out and never see it.
OUTAGE_SECONDS = 6.5


@dataclass
class Answer:
    """One request's answer, and when it was sent (relative to the outage)."""

    phase: str  # "before", "stopping", "during" or "after"
    status: int
    headers: dict[str, str]
    body: bytes
    event_ids: list[str] = field(default_factory=list)
    #: What was sent (a capture's document).
    sent: bytes = b""

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Recording:
    """Everything the clients saw and the service logged around one outage."""

    captures: list[Answer] = field(default_factory=list)
    queries: list[Answer] = field(default_factory=list)
    items: list[Answer] = field(default_factory=list)
    health: list[Answer] = field(default_factory=list)
    logs: list[logging.LogRecord] = field(default_factory=list)
    #: After recovery: every event ID the store answers with, and what was resent.
    stored_ids: list[str] = field(default_factory=list)
    resent: list[Answer] = field(default_factory=list)
    delivered_ids: list[str] = field(default_factory=list)
    recovery_seconds: float = 0.0


class _Keep(logging.Handler):
    def __init__(self, into: list[logging.LogRecord]) -> None:
        super().__init__(logging.DEBUG)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    made = Cluster.create()
    try:
        yield made
    finally:
        made.destroy()


@pytest.fixture(scope="module")
def recording(cluster: Cluster) -> Recording:
    record = Recording()
    keep = _Keep(record.logs)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(keep)
    root.setLevel(logging.INFO)
    try:
        asyncio.run(_live_through_an_outage(cluster, record))
    finally:
        root.removeHandler(keep)
        root.setLevel(old_level)
    return record


async def _live_through_an_outage(cluster: Cluster, record: Recording) -> None:
    settings = make_settings(
        cluster.url(), background_work=True, flow_poll_interval=0.2, code_worker_interval=0.5
    )
    service = Tracepoint(settings)
    await service.start()
    client = TestClient(TestServer(create_app(service, manage_lifecycle=False)))
    await client.start_server()
    try:
        async with running_partner() as partner:
            await flow_to(client, partner.url, {"EQ_bizStep": ["shipping"]}, interval_seconds=1)
            await _traffic_around_an_outage(client, cluster, record)
            await _after_recovery(client, partner, record)
    finally:
        await client.close()
        await service.stop()


async def _traffic_around_an_outage(
    client: TestClient[Any, Any], cluster: Cluster, record: Recording
) -> None:
    phase = ["before"]
    stop = asyncio.Event()

    async def send(kind: list[Answer], method: str, path: str, **kw: Any) -> None:
        ids = kw.pop("event_ids", [])
        sent_in = phase[0]
        response = await client.request(method, path, **kw)
        body = await response.read()
        # Sent before the stop but answered after it began: it met the stopping server.
        met = "stopping" if sent_in == "before" and phase[0] != "before" else sent_in
        answer = Answer(met, response.status, dict(response.headers), body, ids)
        answer.sent = kw.get("data", b"")
        kind.append(answer)

    async def loop(kind: list[Answer], make: Any) -> None:
        while not stop.is_set():
            method, path, kw = make()
            await send(kind, method, path, **kw)
            await asyncio.sleep(0.05)

    def a_capture() -> tuple[str, str, dict[str, Any]]:
        events = [object_event(eventID=f"urn:uuid:{uuid.uuid4()}") for _ in range(2)]
        return (
            "POST",
            "/v2/epcis/capture",
            {
                "data": orjson.dumps(document(*events)),
                "headers": {**AUTH, "Content-Type": "application/json"},
                "event_ids": [e["eventID"] for e in events],
            },
        )

    loops = [
        loop(record.captures, a_capture),
        loop(record.captures, a_capture),
        loop(record.queries, lambda: ("GET", "/v2/epcis/events", {"headers": AS_CAPTURED})),
        loop(record.items, lambda: ("GET", "/items/epcis_queries", {"headers": AUTH})),
        loop(record.health, lambda: ("GET", "/server/health", {})),
    ]
    tasks = [asyncio.create_task(each) for each in loops]
    await asyncio.sleep(1.0)
    phase[0] = "stopping"
    await asyncio.to_thread(cluster.stop)
    phase[0] = "during"
    await asyncio.sleep(OUTAGE_SECONDS)
    phase[0] = "after"
    await asyncio.to_thread(cluster.start)
    started = time.monotonic()
    while not any(a.phase == "after" and a.status == 200 for a in record.health[-1:]):
        assert time.monotonic() - started < 20, "the service did not recover"
        await asyncio.sleep(0.05)
    record.recovery_seconds = time.monotonic() - started
    await asyncio.sleep(1.0)
    stop.set()
    await asyncio.gather(*tasks)


async def _after_recovery(
    client: TestClient[Any, Any], partner: Partner, record: Recording
) -> None:
    # A client resends what met the outage; capture is idempotent by event ID.
    for refused in [a for a in record.captures if a.status == 503]:
        response = await client.post(
            "/v2/epcis/capture",
            data=refused.sent,
            headers={**AUTH, "Content-Type": "application/json"},
        )
        body = await response.read()
        record.resent.append(
            Answer("after", response.status, dict(response.headers), body, refused.event_ids)
        )
    response = await client.get("/v2/epcis/events", params={"perPage": "1000"}, headers=AS_CAPTURED)
    assert response.status == 200, await response.text()
    assert "nextPageToken" not in response.headers.get("Link", "")  # a few hundred events
    body = await response.json()
    record.stored_ids = [
        e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ]
    # The flow delivers everything captured, the outage's backlog included.
    expected = set(record.stored_ids)
    for _ in range(100):
        if expected <= set(partner.event_ids):
            break
        await asyncio.sleep(0.1)
    record.delivered_ids = list(partner.event_ids)


def acknowledged(answers: list[Answer]) -> list[Answer]:
    return [a for a in answers if 200 <= a.status < 300]


def test_requests_during_an_outage_are_never_answered_500(recording: Recording) -> None:
    answers = recording.captures + recording.queries + recording.items + recording.health
    assert [a.status for a in answers if a.status >= 500 and a.status != 503] == []


def test_captures_during_an_outage_are_503_epcis_exceptions_with_retry_after(
    recording: Recording,
) -> None:
    refused = [a for a in recording.captures if a.status == 503]
    assert refused, "no capture met the outage"
    for answer in refused:
        assert answer.headers["Retry-After"] == "5"
        body = answer.json()
        assert body["type"] == "epcisException:ImplementationException"
        assert body["status"] == 503


def test_queries_during_an_outage_are_503_epcis_exceptions_with_retry_after(
    recording: Recording,
) -> None:
    refused = [a for a in recording.queries if a.status == 503]
    assert refused, "no query met the outage"
    assert all(a.headers["Retry-After"] == "5" for a in refused)
    assert {a.json()["type"] for a in refused} == {"epcisException:ImplementationException"}


def test_platform_requests_during_an_outage_are_503_service_unavailable(
    recording: Recording,
) -> None:
    refused = [a for a in recording.items if a.status == 503]
    assert refused, "no platform request met the outage"
    assert all(a.headers["Retry-After"] == "5" for a in refused)
    codes = {e["extensions"]["code"] for a in refused for e in a.json()["errors"]}
    assert codes == {"SERVICE_UNAVAILABLE"}


def test_health_is_503_during_an_outage_and_200_again_after_it(recording: Recording) -> None:
    meeting_it = [a for a in recording.health if a.phase in ("stopping", "during")]
    assert 503 in [a.status for a in meeting_it]
    assert all(a.headers["Retry-After"] == "5" for a in meeting_it if a.status == 503)
    assert recording.health[-1].status == 200
    assert [a.status for a in recording.health if a.phase == "before"] == [200] * len(
        [a for a in recording.health if a.phase == "before"]
    )


def test_the_service_recovers_by_itself_within_seconds(recording: Recording) -> None:
    assert recording.recovery_seconds < 10
    for answers in (recording.captures, recording.queries, recording.items):
        assert answers[-1].status in (200, 201, 202), answers[-1].body


def test_every_acknowledged_capture_is_queryable_after_the_outage(recording: Recording) -> None:
    acknowledged_ids = {i for a in acknowledged(recording.captures) for i in a.event_ids}
    assert acknowledged_ids <= set(recording.stored_ids)


def test_a_capture_refused_during_the_outage_can_be_resent(recording: Recording) -> None:
    assert recording.resent
    assert {a.status for a in recording.resent} <= {201, 202}
    resent_ids = {i for a in recording.resent for i in a.event_ids}
    assert resent_ids <= set(recording.stored_ids)


def test_no_event_is_stored_twice(recording: Recording) -> None:
    assert len(recording.stored_ids) == len(set(recording.stored_ids))


def test_the_flow_delivers_every_event_after_the_outage(recording: Recording) -> None:
    assert set(recording.stored_ids) <= set(recording.delivered_ids)


def test_the_log_has_no_traceback(recording: Recording) -> None:
    tracebacks = [r.getMessage() for r in recording.logs if r.exc_info]
    assert tracebacks == []


def test_each_background_worker_logs_one_line_when_the_outage_starts_and_one_when_it_ends(
    recording: Recording,
) -> None:
    lines = [r.getMessage() for r in recording.logs if r.name == "application.operations.outages"]
    workers = [line.split(":")[0] for line in lines]
    assert workers, "no worker met the outage"
    for worker in set(workers):
        mine = [line for line in lines if line.startswith(f"{worker}:")]
        assert len(mine) == 2, mine
        assert "unavailable" in mine[0]
        assert "is back" in mine[1]


async def test_requests_right_after_a_restart_get_live_connections_not_503(
    cluster: Cluster,
) -> None:
    # No background work and a slow follower: nothing notices the restart before the
    # requests do, so every pooled connection is one the server dropped.
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA IF NOT EXISTS restart")
    settings = make_settings(cluster.url() + "?schema=restart", projection_poll_interval=60)
    service = Tracepoint(settings)
    await service.start()
    client = TestClient(TestServer(create_app(service, manage_lifecycle=False)))
    await client.start_server()
    try:
        await _warm_the_pools(client)
        await asyncio.to_thread(cluster.stop)
        await asyncio.to_thread(cluster.start)
        # The capture first: it is not retried, so it must get a live connection at once.
        capture = await client.post(
            "/v2/epcis/capture",
            data=orjson.dumps(document(object_event())),
            headers={**AUTH, "Content-Type": "application/json"},
        )
        query = await client.get("/v2/epcis/events", headers=AS_CAPTURED)
        items = await client.get("/items/epcis_queries", headers=AUTH)
        assert (query.status, items.status, capture.status) == (200, 200, 201), [
            await r.text() for r in (query, items, capture)
        ]
    finally:
        await client.close()
        await service.stop()


async def _warm_the_pools(client: TestClient[Any, Any]) -> None:
    """Several connections in each pool, by concurrent requests."""
    await asyncio.gather(
        *(client.get("/v2/epcis/events", headers=AS_CAPTURED) for _ in range(6)),
        *(
            client.post(
                "/v2/epcis/capture",
                data=orjson.dumps(document(object_event())),
                headers={**AUTH, "Content-Type": "application/json"},
            )
            for _ in range(3)
        ),
    )
