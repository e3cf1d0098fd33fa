"""WD_bizLocation follows the location master data: a query for a site finds the events
at its docks and bins, whatever their identifiers."""

from typing import Any

from tests.access.helpers import Client, ok
from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture as capture_document

SITE_GLN, DOCK_GLN = "9506000134352", "9506000134369"


async def capture(client: Client, *events: dict[str, Any]) -> None:
    response = await capture_document(client, document(*events))
    assert response.status in (201, 202), await response.text()


async def biz_locations(client: Client, within: str) -> list[str]:
    response = await client.get(
        "/v2/epcis/events", params={"WD_bizLocation": within}, headers=AS_CAPTURED
    )
    assert response.status == 200, await response.text()
    body = await response.json()
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return sorted(e["bizLocation"]["id"] for e in events)


async def site_with_dock_and_bin(client: Client) -> None:
    site = await ok(
        client, "POST", "/items/location", {"gln": SITE_GLN, "use_gs1_identifiers": True}
    )
    dock = await ok(
        client,
        "POST",
        "/items/location",
        {"gln": DOCK_GLN, "use_gs1_identifiers": True, "parent_location": site["id"]},
    )
    await ok(
        client,
        "POST",
        "/items/location",
        {"id": "urn:example:bin:7", "parent_location": dock["id"]},
    )


async def test_a_site_query_finds_events_at_its_docks_and_bins(client: Client) -> None:
    await site_with_dock_and_bin(client)
    dock_sgln = "urn:epc:id:sgln:9506000.13436.0"
    await capture(
        client,
        object_event(bizLocation={"id": dock_sgln}),
        object_event(bizLocation={"id": "urn:example:bin:7"}),
        object_event(bizLocation={"id": "urn:epc:id:sgln:4012345.00001.0"}),
    )
    found = await biz_locations(client, "urn:epc:id:sgln:9506000.13435.0")
    assert found == [dock_sgln, "urn:example:bin:7"]


async def test_a_dock_query_does_not_climb_to_its_site(client: Client) -> None:
    await site_with_dock_and_bin(client)
    await capture(
        client,
        object_event(bizLocation={"id": "urn:epc:id:sgln:9506000.13435.0"}),
        object_event(bizLocation={"id": "urn:example:bin:7"}),
    )
    found = await biz_locations(client, f"https://id.gs1.org/414/{DOCK_GLN}")
    assert found == ["urn:example:bin:7"]


async def test_a_place_without_master_data_still_covers_its_gln_extensions(client: Client) -> None:
    await capture(client, object_event(bizLocation={"id": "urn:epc:id:sgln:4012345.00001.9"}))
    found = await biz_locations(client, "urn:epc:id:sgln:4012345.00001.0")
    assert found == ["urn:epc:id:sgln:4012345.00001.9"]


async def test_wd_read_point_follows_the_same_hierarchy(client: Client) -> None:
    await site_with_dock_and_bin(client)
    await capture(
        client,
        object_event(readPoint={"id": "urn:example:bin:7"}),
        object_event(readPoint={"id": "urn:epc:id:sgln:4012345.00001.0"}),
    )
    response = await client.get(
        "/v2/epcis/events",
        params={"WD_readPoint": "urn:epc:id:sgln:9506000.13435.0"},
        headers=AUTH,
    )
    body = await response.json()
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert [e["readPoint"]["id"] for e in events] == ["urn:example:bin:7"]
