"""A capture job that reads as done has every event it stored queryable (docs/architecture.md,
"Done is readable")."""

import asyncio
from typing import Any

import orjson
import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.captured_master_data import CapturedMasterData
from infrastructure.settings import Settings
from projections.epcis.events import EpcisEventsProjection
from projections.epcis.master_data import MasterDataProjection
from tests.access.helpers import Client
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_master_data import (
    ROOM_ELEMENT,
    SHELF,
    SITE,
    SITE_ELEMENT,
    places,
    with_master_data,
)
from tests.paused_projection import PausedProjection


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Batches of 4 events, so a capture of 10 spans several."""
    return make_settings(database_url, projection_batch_size=4)


async def read(client: Client, path: str) -> Any:
    response = await client.get(path, headers=AUTH)
    assert response.status == 200, await response.text()
    return await response.json()


async def test_a_capture_job_is_listed_only_with_all_its_events_queryable(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    events = [object_event() for _ in range(10)]
    last_epc = events[-1]["epcList"][0]
    # As when another process wrote in between: the follower projects the capture.
    monkeypatch.setattr(tracepoint.projections, "apply_within", lambda conn, saved: False)
    paused = PausedProjection(
        monkeypatch,
        EpcisEventsProjection,
        lambda e: isinstance(e, CapturedEvent.Captured) and last_epc in str(e.epcis_event),
    )
    posted = asyncio.create_task(
        client.post(
            "/v2/epcis/capture",
            data=orjson.dumps(document(*events)),
            headers={**AUTH, "Content-Type": "application/json"},
        )
    )
    await paused.reached()
    jobs = await read(client, "/v2/epcis/capture")
    queryable = (await read(client, "/v2/epcis/events?perPage=100"))["epcisBody"]["queryResults"]
    paused.release()
    assert (await posted).status == 201
    found = queryable["resultsBody"]["eventList"]
    assert [j["eventsCaptured"] for j in jobs if j["success"]] in ([], [len(found)])


async def test_a_capture_job_is_listed_only_with_its_master_data_queryable(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = with_master_data(
        document(object_event(bizLocation={"id": SITE}), object_event(bizLocation={"id": SHELF})),
        SITE_ELEMENT,
        ROOM_ELEMENT,
    )
    monkeypatch.setattr(tracepoint.projections, "apply_within", lambda conn, saved: False)
    paused = PausedProjection(
        monkeypatch, MasterDataProjection, lambda e: isinstance(e, CapturedMasterData.Captured)
    )
    posted = asyncio.create_task(
        client.post(
            "/v2/epcis/capture",
            data=orjson.dumps(doc),
            headers={**AUTH, "Content-Type": "application/json"},
        )
    )
    await paused.reached()
    jobs = await read(client, "/v2/epcis/capture")
    # The shelf is within the site by the master data only.
    within_site = await places(client, WD_bizLocation=SITE)
    paused.release()
    assert (await posted).status == 201
    assert not jobs or within_site == sorted([SITE, SHELF])
