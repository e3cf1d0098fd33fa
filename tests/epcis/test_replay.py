"""Replaying the event log rebuilds read models that answer exactly as before."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.commands import run_command
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_query_events import ALL

Client = TestClient[Any, Any]

QUERIES: list[dict[str, str]] = [
    {},
    {"eventType": "ObjectEvent"},
    {"EQ_bizStep": "shipping", "perPage": "2"},
    {"MATCH_epc": "urn:epc:idpat:sgtin:4012345.011111.*"},
    {"MATCH_anyEPCClass": "urn:epc:class:lgtin:4012345.077777.B2"},
    {"GE_eventTime": "2024-03-01T09:00:00Z", "orderBy": "eventTime", "orderDirection": "DESC"},
    {"GT_quantity": "2"},
    {"EXISTS_errorDeclaration": "true"},
    {"EQ_errorReason": "incorrect_data", "EQ_correctiveEventID": "urn:uuid:1"},
    {"EQ_eventID": "urn:uuid:00000000-0000-4000-8000-0000000000d1"},
]

#: An event and two declarations of it: the journal the replay must rebuild.
DECLARED = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d1")
DECLARATIONS = [
    {
        **DECLARED,
        "errorDeclaration": {
            "declarationTime": f"2024-03-0{day}T00:00:00Z",
            "reason": "incorrect_data",
            "correctiveEventIDs": ["urn:uuid:1"],
        },
    }
    for day in (2, 3)
]


async def answers(client: Client) -> list[Any]:
    results = []
    for params in QUERIES:
        response = await client.get("/v2/epcis/events", params=params, headers=AUTH)
        body = await response.json()
        results.append(
            (body["epcisBody"]["queryResults"]["resultsBody"], response.headers.get("Link"))
        )
    return results


async def test_queries_answer_the_same_after_a_replay(
    client: Client, tracepoint: Tracepoint
) -> None:
    await capture(client, document(*ALL))
    await capture(client, document(*[object_event() for _ in range(12)], DECLARED))
    await capture(client, document(*DECLARATIONS))
    before = await answers(client)
    assert len(before[-1][0]["eventList"]) == 3
    jobs_before = await (await client.get("/v2/epcis/capture", headers=AUTH)).json()
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert await answers(client) == before
    assert await (await client.get("/v2/epcis/capture", headers=AUTH)).json() == jobs_before


async def test_the_replay_command_rebuilds_from_the_event_store(
    client: Client, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await capture(client, document(*[object_event() for _ in range(5)]))
    before = await answers(client)
    monkeypatch.setenv("TRACEPOINT_DATABASE_URL", database_url)
    monkeypatch.setenv("TRACEPOINT_SECRET", "test-secret")
    result = await run_command("replay")
    assert result.exit_code == 0, result.output
    assert "Rebuilt the read models" in result.output
    assert await answers(client) == before


async def test_the_command_lists_serve_and_replay() -> None:
    result = await run_command("--help")
    assert result.exit_code == 0
    assert "serve" in result.output
    assert "replay" in result.output


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEPOINT_PORT", "9123")
    monkeypatch.setenv("TRACEPOINT_CAPTURE_MAX_EVENTS", "77")
    settings = Settings(database_url="sqlite:///x.db")
    assert settings.capture_max_events == 77
    assert settings.port == 9123
