"""Events of a type the standard does not define, named by a URI (GS1's Extended-Event):
captured as sent, named by their hash, and selected by `eventType` in either spelling."""

from typing import Any
from urllib.parse import quote

from aiohttp.test_utils import TestClient

from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import CONTEXT, document
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

NAMESPACE = "https://example.com/epcis/"
INSPECTION = {
    "type": "ex:InspectionEvent",
    "eventTime": "2024-03-01T10:00:00.000Z",
    "eventTimeZoneOffset": "+00:00",
    "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
    "ex:inspector": "J. Doe",
}


async def captured(client: Client) -> None:
    response = await capture(client, document(INSPECTION, context=[CONTEXT, {"ex": NAMESPACE}]))
    assert response.status == 201, await response.text()


async def test_an_extension_event_is_read_back_as_sent(client: Client) -> None:
    await captured(client)
    [returned] = await events(client)
    assert returned.pop("eventID").startswith("ni:///sha-256;")
    assert returned.pop("recordTime")
    assert returned == INSPECTION


async def test_event_type_selects_it_by_its_iri_or_its_curie(client: Client) -> None:
    await captured(client)
    assert len(await events(client, eventType=NAMESPACE + "InspectionEvent")) == 1
    assert len(await events(client, eventType="ex:InspectionEvent")) == 1
    assert await events(client, eventType="ObjectEvent") == []


async def test_other_parameters_find_it_as_any_event(client: Client) -> None:
    await captured(client)
    found = await events(client, EQ_readPoint="urn:epc:id:sgln:4012345.00001.0")
    assert [e["type"] for e in found] == ["ex:InspectionEvent"]


async def test_an_event_type_that_is_neither_standard_nor_a_uri_is_a_400(client: Client) -> None:
    response = await client.get(
        "/v2/epcis/events", params={"eventType": "QuantityEvent"}, headers=AS_CAPTURED
    )
    assert response.status == 400
    assert "nor a URI" in (await response.json())["detail"]


async def test_its_hash_is_the_same_whether_its_type_is_a_curie_or_an_iri(
    client: Client,
) -> None:
    await captured(client)
    spelled_out = {**INSPECTION, "type": NAMESPACE + "InspectionEvent"}
    response = await capture(client, document(spelled_out, context=[CONTEXT, {"ex": NAMESPACE}]))
    assert "0 new event(s); 1 already present" in (await response.json())["message"]


async def test_event_types_lists_it_by_its_iri_and_finds_it_in_either_spelling(
    client: Client,
) -> None:
    await captured(client)
    listed = await client.get("/v2/epcis/eventTypes", headers=AUTH)
    assert (await listed.json())["member"] == [NAMESPACE + "InspectionEvent"]
    for spelling in (NAMESPACE + "InspectionEvent", "ex:InspectionEvent"):
        path = "/v2/epcis/eventTypes/" + quote(spelling, safe="") + "/events"
        response = await client.get(path, headers=AUTH)
        assert response.status == 200, await response.text()
