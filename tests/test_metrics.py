"""`/metrics`: Prometheus metrics, off by default, read with a metrics token or as an admin."""

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from projections.epcis.events import EpcisEventsProjection
from tests.access.helpers import Client, code, user_with
from tests.codes.helpers import finished_job, product
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import document, object_event
from tests.flows.helpers import capture, flow_to, run
from tests.flows.partner import Partner, running_partner
from tests.flows.test_subscriptions import named_query, subscribe
from tests.projections.test_runner import captured

TOKEN = "scrape-token-for-tests"
SCRAPER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Metrics served, with two scrape tokens."""
    return make_settings(database_url, metrics_enabled=True, metrics_tokens=f"other, {TOKEN}")


async def scrape(client: Client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and labels; the text must parse."""
    response = await client.get("/metrics", headers=SCRAPER)
    assert response.status == 200, await response.text()
    samples = {}
    for family in text_string_to_metric_families(await response.text()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    """One sample's value (0 when it is not there yet)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def names(samples: dict[Any, float]) -> set[str]:
    return {name for name, _ in samples}


# -- switched and guarded ------------------------------------------------------------


async def test_metrics_are_not_served_when_disabled(
    tracepoint: Tracepoint, aiohttp_client: Any
) -> None:
    tracepoint.settings.metrics_enabled = False
    client: Client = await aiohttp_client(create_app(tracepoint, manage_lifecycle=False))
    response = await client.get("/metrics", headers=AUTH)
    assert response.status == 404
    assert code(await response.json()) == "ROUTE_NOT_FOUND"


async def test_a_metrics_token_reads_them_in_the_prometheus_text_format(client: Client) -> None:
    response = await client.get("/metrics", headers=SCRAPER)
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    families = list(text_string_to_metric_families(await response.text()))
    assert families
    assert all(f.name.startswith("tracepoint_") for f in families)


async def test_the_directus_metrics_scheme_is_accepted_too(client: Client) -> None:
    response = await client.get("/metrics", headers={"Authorization": f"Metrics {TOKEN}"})
    assert response.status == 200


async def test_an_admins_static_token_reads_them(client: Client) -> None:
    response = await client.get("/metrics", headers=AUTH)
    assert response.status == 200


async def test_an_admins_access_token_reads_them(client: Client) -> None:
    login = await client.post(
        "/auth/login",
        json={"email": "admin@example.com", "password": "correct horse battery staple"},
    )
    token = (await login.json())["data"]["access_token"]
    response = await client.get("/metrics", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200


async def test_no_token_is_forbidden_in_the_directus_error_shape(client: Client) -> None:
    response = await client.get("/metrics")
    assert response.status == 403
    assert code(await response.json()) == "FORBIDDEN"


async def test_a_wrong_token_is_forbidden_not_unauthorised(client: Client) -> None:
    response = await client.get("/metrics", headers={"Authorization": "Bearer not-a-token"})
    assert response.status == 403
    assert code(await response.json()) == "FORBIDDEN"


async def test_a_user_who_is_no_admin_is_forbidden(client: Client) -> None:
    user = await user_with(client)
    response = await client.get("/metrics", headers={"Authorization": f"Bearer {user.token}"})
    assert response.status == 403


# -- what is counted -------------------------------------------------------------------


async def test_a_capture_moves_the_capture_counters(client: Client) -> None:
    before = await scrape(client)
    response = await client.post(
        "/v2/epcis/capture", json=document(object_event(), object_event()), headers=AUTH
    )
    assert response.status == 201
    after = await scrape(client)
    captures = "tracepoint_captures_total"
    assert value(after, captures) == value(before, captures) + 1
    stored = value(after, "tracepoint_capture_events_total", result="stored")
    assert stored == value(before, "tracepoint_capture_events_total", result="stored") + 2


async def test_refused_captures_are_counted_by_reason(client: Client) -> None:
    invalid = document(object_event(action="SOMETIMES"))
    assert (await client.post("/v2/epcis/capture", json=invalid, headers=AUTH)).status == 400
    unsupported = {**AUTH, "Content-Type": "text/csv"}
    assert (await client.post("/v2/epcis/capture", data=b"a,b", headers=unsupported)).status == 415
    samples = await scrape(client)
    assert value(samples, "tracepoint_capture_rejections_total", reason="validation") == 1
    assert value(samples, "tracepoint_capture_rejections_total", reason="media_type") == 1
    assert value(samples, "tracepoint_captures_total") == 0


async def test_requests_are_counted_by_route_pattern_not_by_path(client: Client) -> None:
    await client.get("/items/product/no-such-product-1", headers=AUTH)
    await client.get("/items/product/no-such-product-2", headers=AUTH)
    response = await client.get("/metrics", headers=SCRAPER)
    text = await response.text()
    assert "no-such-product" not in text
    samples = await scrape(client)
    routes = {
        dict(labels)["route"] for name, labels in samples if name.startswith("tracepoint_http")
    }
    assert "/items/{collection}/{key}" in routes


async def test_request_latency_is_a_histogram_by_route_method_and_status(client: Client) -> None:
    await client.get("/server/ping")
    samples = await scrape(client)
    labels = {"route": "/server/ping", "method": "GET", "status": "200"}
    assert value(samples, "tracepoint_http_request_duration_seconds_count", **labels) == 1
    assert value(samples, "tracepoint_http_request_duration_seconds_bucket", le="+Inf", **labels)


async def test_the_projection_lag_is_reported_for_every_projection(
    tracepoint: Tracepoint, client: Client
) -> None:
    await capture(client, object_event())
    samples = await scrape(client)
    head = value(samples, "tracepoint_event_log_head_position")
    assert head > 0
    for projection in tracepoint.projections.projections:
        name = {"projection": projection.name}
        assert ("tracepoint_projection_lag_seconds", tuple(name.items())) in samples
        # A capture answers once its events are queryable: nothing is behind.
        assert value(samples, "tracepoint_projection_lag_positions", **name) == 0
        assert value(samples, "tracepoint_projection_position", **name) == head


def test_projection_lag_counts_what_a_projection_has_not_applied_and_its_age(
    database_url: str,
) -> None:
    service = Tracepoint(make_settings(database_url))
    try:
        service.store.save(*captured(3))
        service.projections.catch_up()
        service.store.save(*captured(5)[3:])  # two more, not projected (nothing follows)
        head, lags = service.projections.lag(datetime.now(UTC) + timedelta(minutes=1))
        lag = {lag.name: lag for lag in lags}[EpcisEventsProjection().name]
        assert (lag.position, lag.positions_behind) == (head - 2, 2)
        assert lag.seconds_behind >= 60
        service.projections.catch_up()
        _, lags = service.projections.lag(datetime.now(UTC))
        assert {(lag.positions_behind, lag.seconds_behind) for lag in lags} == {(0, 0.0)}
    finally:
        service.close()


def test_a_part_of_the_state_that_cannot_be_read_is_named_and_the_rest_is_read(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(make_settings(database_url))
    try:

        def unreachable(now: datetime) -> None:
            raise OSError("connection refused")

        monkeypatch.setattr(service.state, "_runner", type("R", (), {"lag": unreachable}))
        state = service.state.read()
        assert state.failed == ["projections"]
        assert state.projections is None
        assert state.pool is not None
    finally:
        service.close()


#: The parts a scrape reads from the database, in the order it reads them.
DATABASE_PARTS = ["projections", "subscriptions", "flows", "identifier_jobs", "reservations"]


def database_down(service: Tracepoint, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every query of a scrape fails as in an outage; returns the parts that tried."""
    tried: list[str] = []

    def unavailable(part: str) -> Callable[..., None]:
        def read(*_: object) -> None:
            tried.append(part)
            raise psycopg.OperationalError("connection is lost")  # no server answered

        return read

    monkeypatch.setattr(
        service.state, "_runner", type("R", (), {"lag": unavailable("projections")})
    )
    for part in DATABASE_PARTS[1:]:
        monkeypatch.setattr(service.state._reader, part, unavailable(part))
    return tried


def test_a_scrape_during_an_outage_tries_the_database_once_and_names_every_part_unread(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = Tracepoint(make_settings(database_url))
    try:
        tried = database_down(service, monkeypatch)
        state = service.state.read()
        assert tried == ["projections"]
        assert state.failed == DATABASE_PARTS
        assert state.pool is not None  # the pool's own counters need no query
    finally:
        service.close()


def test_an_outage_is_logged_once_without_a_traceback_however_often_it_is_scraped(
    database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service = Tracepoint(make_settings(database_url))
    try:
        database_down(service, monkeypatch)
        with caplog.at_level(logging.WARNING):
            for _ in range(3):
                service.state.read()
        [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert "database is unavailable" in line.getMessage()
        assert line.exc_info is None
    finally:
        service.close()


async def test_the_database_pool_is_reported(client: Client) -> None:
    samples = await scrape(client)
    assert value(samples, "tracepoint_database_pool_max_connections") == 8
    assert ("tracepoint_database_pool_connections", (("state", "in_use"),)) in samples
    assert "tracepoint_database_pool_waiting_requests" in names(samples)


async def test_identifier_jobs_report_their_progress(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=7)
    samples = await scrape(client)
    assert value(samples, "tracepoint_identifier_jobs", status="complete") == 1
    assert value(samples, "tracepoint_identifier_job_codes_created", status="complete") == 7
    assert value(samples, "tracepoint_codes_created_total") == 7


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


async def test_flow_deliveries_and_failures_are_counted(client: Client, partner: Partner) -> None:
    await capture(client, object_event(), object_event())
    flow = await flow_to(client, partner.url, {"EQ_bizStep": ["shipping"]})
    await run(client, flow)
    await capture(client, object_event())
    partner.status = 503
    await run(client, flow)
    samples = await scrape(client)
    assert value(samples, "tracepoint_delivery_events_total", kind="flow") == 2
    assert (
        value(samples, "tracepoint_delivery_failures_total", kind="flow", outcome="retrying") == 1
    )
    assert value(samples, "tracepoint_outbound_flows", status="retrying") == 1
    assert value(samples, "tracepoint_outbound_flow_backlog_events", flow=flow["id"]) == 0
    assert ("tracepoint_outbound_flow_last_run_timestamp_seconds", (("flow", flow["id"]),)) in (
        samples
    )


async def test_a_service_counts_in_a_registry_of_its_own(tracepoint: Tracepoint) -> None:
    # Tests run many services in one process: none may count in the client's global one.
    assert tracepoint.metrics.registry is not REGISTRY
    assert not [m for m in REGISTRY.collect() if m.name.startswith("tracepoint_")]


async def test_subscription_deliveries_and_failures_are_counted(
    tracepoint: Tracepoint, client: Client, partner: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=partner.url, stream=True)
    assert response.status == 201, await response.text()
    await capture(client, object_event(), object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    partner.status = 500
    await capture(client, object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    # The subscription's new status reaches its table with the next projection.
    assert await tracepoint.follower.wait_for(tracepoint.store.max_position(), 10)
    samples = await scrape(client)
    assert value(samples, "tracepoint_delivery_events_total", kind="subscription") == 2
    failures = {"kind": "subscription", "outcome": "retrying"}
    assert value(samples, "tracepoint_delivery_failures_total", **failures) == 1
    assert value(samples, "tracepoint_subscriptions", status="retrying") == 1


async def subscription_key(client: Client, partner: Partner, **controls: Any) -> str:
    name = await named_query(client)
    response = await subscribe(client, name, dest=partner.url, **controls)
    assert response.status == 201, await response.text()
    return str((await response.json())["subscriptionID"])


async def test_no_subscription_behind_reads_a_lag_of_zero_seconds(
    tracepoint: Tracepoint, client: Client, partner: Partner
) -> None:
    await subscription_key(client, partner, stream=True)
    await capture(client, object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    assert await tracepoint.follower.wait_for(tracepoint.store.max_position(), 10)
    assert value(await scrape(client), "tracepoint_subscription_lag_seconds_max") == 0


async def test_a_subscription_that_cannot_deliver_reads_the_age_of_what_waits(
    tracepoint: Tracepoint, client: Client, partner: Partner
) -> None:
    await subscription_key(client, partner, stream=True)
    partner.status = 500
    captured_at = datetime.now(UTC)
    await capture(client, object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    await asyncio.sleep(1.2)
    seconds = value(await scrape(client), "tracepoint_subscription_lag_seconds_max")
    assert 1.0 <= seconds <= (datetime.now(UTC) - captured_at).total_seconds() + 0.1


async def test_events_a_subscription_does_not_select_leave_it_no_lag(
    tracepoint: Tracepoint, client: Client, partner: Partner
) -> None:
    await subscription_key(client, partner, stream=True)
    await capture(client, object_event(bizStep="receiving"))
    await tracepoint.epcis.subscriptions.deliver_due()
    assert await tracepoint.follower.wait_for(tracepoint.store.max_position(), 10)
    await asyncio.sleep(1.2)
    assert partner.documents == []
    assert value(await scrape(client), "tracepoint_subscription_lag_seconds_max") == 0
