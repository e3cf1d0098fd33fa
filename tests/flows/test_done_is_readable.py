"""What a flow's cursor says was delivered is readable through the EPCIS query API as
soon as the flow's record says it, however far behind the events' read model is."""

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from projections.epcis.events import EpcisEventsProjection
from tests.access.helpers import Client, ok, user_with
from tests.epcis.documents import object_event
from tests.flows.helpers import capture, flow_to, run
from tests.flows.partner import Partner, running_partner
from tests.paused_projection import PausedProjection

SHIPPING = {"EQ_bizStep": ["shipping"]}
HELD = "urn:uuid:00000000-0000-4000-8000-0000000000e1"


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


def projected_by_the_follower(tracepoint: Tracepoint, monkeypatch: pytest.MonkeyPatch) -> None:
    """Captures leave their events to the follower, as when another process wrote in
    between: the events are in the log while their projection is held, and the log's
    lock is not (a capture projecting its own events holds it until they are in)."""
    monkeypatch.setattr(tracepoint.projections, "apply_within", lambda conn, saved: False)


def held(event: Any) -> bool:
    return getattr(event, "event_id", None) == HELD


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def reader(client: Client) -> str:
    """The static token of someone who reads events and flows and wrote nothing."""
    user = await user_with(
        client,
        {"collection": "epcis_event", "action": "read"},
        {"collection": "epcis_outbound_flow", "action": "read", "fields": ["*"]},
    )
    return user.token


async def readable(client: Client, token: str) -> dict[str, datetime]:
    """The shipping events the query API returns: their IDs and record times."""
    response = await client.get(
        "/v2/epcis/events",
        params={"EQ_bizStep": "shipping", "perPage": "100"},
        headers={"Authorization": f"Bearer {token}"},
    )
    body = await response.json()
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return {e["eventID"]: moment(e["recordTime"]) for e in events}


async def test_a_flows_cursor_stands_only_for_events_the_query_api_returns(
    client: Client, tracepoint: Tracepoint, partner: Partner, monkeypatch: pytest.MonkeyPatch
) -> None:
    await capture(client, object_event(), object_event())
    projected_by_the_follower(tracepoint, monkeypatch)
    flow = await flow_to(client, partner.url, SHIPPING)
    token = await reader(client)
    paused = PausedProjection(monkeypatch, EpcisEventsProjection, held)
    # Stored in the log, held on its way into the events' read model while the flow runs;
    # let go a moment later, as a slow projection would be.
    capturing = asyncio.create_task(capture(client, object_event(eventID=HELD)))
    try:
        await paused.reached()
        asyncio.get_running_loop().call_later(1.0, paused.release)
        await run(client, flow)
        state = await ok(client, "GET", f"/items/epcis_outbound_flow/{flow['id']}", token=token)
        seen = await readable(client, token)
    finally:
        paused.release()
        await capturing
    sent = [e["eventID"] for e in partner.events]
    assert set(sent) <= set(seen)
    assert moment(state["max_record_time_processed"]) == max(seen[i] for i in sent)
    # Nothing the cursor passed was skipped: the next run sends the rest, once.
    await run(client, flow)
    assert sorted(e["eventID"] for e in partner.events) == sorted(await readable(client, token))


async def test_a_flow_run_by_another_process_moves_its_cursor_only_over_readable_events(
    client: Client,
    tracepoint: Tracepoint,
    partner: Partner,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if settings.database_url.startswith("sqlite"):
        pytest.skip("an SQLite file is served by one process (docs/operations.md)")
    await capture(client, object_event(), object_event())
    projected_by_the_follower(tracepoint, monkeypatch)
    flow = await flow_to(client, partner.url, SHIPPING)
    token = await reader(client)
    # Started first: the pause is of the class, and a start that met the held event in
    # its catch-up would wait out the pause (30 s) before the flow could run.
    other = Tracepoint(settings)
    await other.start()
    paused = PausedProjection(monkeypatch, EpcisEventsProjection, held)
    capturing = asyncio.create_task(capture(client, object_event(eventID=HELD)))
    try:
        await paused.reached()
        # Another process, whose projections this capture does not hold up.
        await other.flows.outbound.run(flow["id"])
        state = await ok(client, "GET", f"/items/epcis_outbound_flow/{flow['id']}", token=token)
        seen = await readable(client, token)
    finally:
        paused.release()
        await capturing
        await other.stop()
    sent = [e["eventID"] for e in partner.events]
    assert set(sent) <= set(seen)
    # This process may show the flow's record as it was before (its projections are
    # held up too): a cursor behind, never one ahead of what it returns.
    processed = state["max_record_time_processed"]
    assert processed is None or moment(processed) <= max(seen[i] for i in sent)
    await run(client, flow)
    assert sorted(e["eventID"] for e in partner.events) == sorted(await readable(client, token))
