"""Captures that run at the same time: nothing lost, nothing doubled."""

import asyncio
from typing import Any

from aiohttp.test_utils import TestClient

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events
from tests.epcis.test_paging import all_pages

Client = TestClient[Any, Any]


async def test_two_captures_at_once_store_all_their_events(client: Client) -> None:
    first = document(*[object_event() for _ in range(50)])
    second = document(*[object_event() for _ in range(50)])
    responses = await asyncio.gather(capture(client, first), capture(client, second))
    assert [r.status for r in responses] == [201, 201]
    assert len(await all_pages(client, "/v2/epcis/events", perPage="40")) == 100


async def test_two_captures_of_overlapping_events_store_each_event_once(client: Client) -> None:
    shared = [object_event() for _ in range(30)]
    first = document(*shared, *[object_event() for _ in range(10)])
    second = document(*[object_event() for _ in range(10)], *shared)
    responses = await asyncio.gather(capture(client, first), capture(client, second))
    assert [r.status for r in responses] == [201, 201]
    paged = await all_pages(client, "/v2/epcis/events", perPage="25")
    assert len(paged) == len(set(paged)) == 50


async def test_two_service_processes_on_one_database_see_each_others_captures(
    client: Client, settings: Settings, aiohttp_client: Any
) -> None:
    other = Tracepoint(settings)
    await other.start()
    try:
        other_client: Client = await aiohttp_client(create_app(other, manage_lifecycle=False))
        await asyncio.gather(
            capture(client, document(*[object_event() for _ in range(20)])),
            capture(other_client, document(*[object_event() for _ in range(20)])),
        )
        # Each process learns of the other's writes by polling the log.
        for reader in (client, other_client):
            for _ in range(100):
                if len(await events(reader, perPage="100")) == 40:
                    break
                await asyncio.sleep(0.05)
            assert len(await events(reader, perPage="100")) == 40
    finally:
        await other.stop()


async def test_record_times_never_decrease_along_the_log(client: Client) -> None:
    await asyncio.gather(
        *(capture(client, document(*[object_event() for _ in range(5)])) for _ in range(6))
    )
    stored = await events(client, perPage="100")  # log order
    record_times = [e["recordTime"] for e in stored]
    assert len(record_times) == 30
    assert record_times == sorted(record_times)


async def test_a_capture_that_keeps_losing_races_still_stores_its_events(
    client: Client, tracepoint: Tracepoint, monkeypatch: Any
) -> None:
    shared = [object_event() for _ in range(3)]
    await capture(client, document(*shared))
    real = tracepoint.store.existing_ids
    calls = {"n": 0}

    def stale_for_two_looks(ids: Any) -> set[str]:
        # As if two other captures stored these events just after each look-up.
        calls["n"] += 1
        return set() if calls["n"] <= 2 else real(ids)

    monkeypatch.setattr(tracepoint.store, "existing_ids", stale_for_two_looks)
    response = await capture(client, document(*shared, object_event()))
    assert response.status == 201
    assert "1 new event(s); 3 already present" in (await response.json())["message"]
    assert len(await events(client)) == 4
