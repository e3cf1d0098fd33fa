"""Master data sent with events (`epcisHeader.epcisMasterData`): recorded with the capture,
followed by WD_bizLocation/WD_readPoint, tested by HASATTR_ and EQ_ATTR_."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

SITE = "urn:epc:id:sgln:0614141.00777.0"
STORE_ROOM = "urn:epc:id:sgln:0614141.00888.0"
SHELF = "urn:epc:id:sgln:0614141.00999.0"
ELSEWHERE = "urn:epc:id:sgln:4012345.00001.0"


def with_master_data(doc: dict[str, Any], *elements: dict[str, Any]) -> dict[str, Any]:
    vocabulary = {
        "type": "urn:epcglobal:epcis:vtype:BusinessLocation",
        "vocabularyElementList": list(elements),
    }
    return {**doc, "epcisHeader": {"epcisMasterData": {"vocabularyList": [vocabulary]}}}


SITE_ELEMENT = {
    "id": SITE,
    "attributes": [
        {"id": "urn:epcglobal:cbv:mda#sst", "attribute": "201"},
        {"id": "cbvmda:name", "attribute": "Distribution centre"},
    ],
    "children": [STORE_ROOM],
}
ROOM_ELEMENT = {"id": STORE_ROOM, "children": [SHELF]}


@pytest.fixture
async def stored(client: Client) -> None:
    doc = with_master_data(
        document(
            object_event(bizLocation={"id": SITE}),
            object_event(bizLocation={"id": SHELF}),
            object_event(bizLocation={"id": ELSEWHERE}),
        ),
        SITE_ELEMENT,
        ROOM_ELEMENT,
    )
    response = await capture(client, doc)
    assert response.status == 201, await response.text()
    assert "2 master-data element(s) recorded" in (await response.json())["message"]


async def places(client: Client, **params: str) -> list[str]:
    return sorted(e["bizLocation"]["id"] for e in await events(client, **params))


async def test_wd_biz_location_follows_the_children_of_captured_master_data(
    client: Client, stored: None
) -> None:
    assert await places(client, WD_bizLocation=SITE) == [SITE, SHELF]


async def test_hasattr_finds_events_at_places_with_the_attribute(
    client: Client, stored: None
) -> None:
    assert await places(client, HASATTR_bizLocation="cbvmda:sst") == [SITE]
    assert await places(client, HASATTR_bizLocation="urn:epcglobal:cbv:mda#name") == [SITE]


async def test_eq_attr_finds_events_at_places_with_the_attribute_value(
    client: Client, stored: None
) -> None:
    assert await places(client, **{"EQ_ATTR_bizLocation_cbvmda:sst": "201|202"}) == [SITE]
    assert await places(client, **{"EQ_ATTR_bizLocation_urn:epcglobal:cbv:mda#sst": "7"}) == []


async def test_a_later_definition_of_an_element_replaces_the_earlier(
    client: Client, stored: None
) -> None:
    redefined = {**SITE_ELEMENT, "children": [], "attributes": []}
    response = await capture(client, with_master_data(document(object_event()), redefined))
    assert response.status == 201
    assert await places(client, WD_bizLocation=SITE) == [SITE]
    assert await places(client, HASATTR_bizLocation="cbvmda:sst") == []


async def test_master_data_survives_a_replay(
    client: Client, stored: None, tracepoint: Tracepoint
) -> None:
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert await places(client, WD_bizLocation=SITE) == [SITE, SHELF]


async def test_attributes_are_followed_from_places_only(client: Client, stored: None) -> None:
    response = await client.get(
        "/v2/epcis/events", params={"HASATTR_bizStep": "cbvmda:x"}, headers=AUTH
    )
    assert response.status == 400
    assert "readPoint and bizLocation" in (await response.json())["detail"]
