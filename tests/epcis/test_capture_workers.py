"""Large captures through the analysis worker processes, end to end (other service
tests analyse in the service process)."""

from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture

Client = Any


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The service with one analysis worker."""
    return make_settings(database_url, capture_workers=1)


async def test_a_large_capture_is_analysed_by_the_workers_and_stored(
    tracepoint: Tracepoint, client: Client
) -> None:
    events = [object_event() for _ in range(100)]
    response = await capture(client, document(*events))
    assert response.status == 201, await response.text()
    assert tracepoint.epcis.analyser.worker_pids()
    answer = await client.get("/v2/epcis/events", params={"perPage": "1000"}, headers=AUTH)
    body = await answer.json()
    stored = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert len(stored) == 100
    assert all(event["eventID"].startswith("ni:///sha-256;") for event in stored)
