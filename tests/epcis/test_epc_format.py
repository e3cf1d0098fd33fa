"""`GS1-EPC-Format`: the EPCs of returned events as Digital Link or EPC URN, or as captured."""

from typing import Any
from urllib.parse import quote

import pytest

from application.epcis.epc_formats import CONVERTED_IN_PLACE
from tests.access.helpers import Client, ok
from tests.conftest import AUTH
from tests.epcis.documents import aggregation_event, document, object_event
from tests.epcis.test_capture import capture

EVENT_ID = "urn:uuid:00000000-0000-4000-8000-0000000000e1"
AS_URNS = aggregation_event(
    "urn:epc:id:sscc:4012345.0000000001",
    ["urn:epc:id:sgtin:4012345.011111.1001", "urn:epc:id:bic:CSQU3054383"],
    eventID=EVENT_ID,
    childQuantityList=[{"epcClass": "urn:epc:class:lgtin:4012345.011111.L1", "quantity": 2}],
    readPoint={"id": "urn:epc:id:sgln:4012345.00001.0"},
    bizLocation={"id": "urn:epc:id:sgln:4012345.00002.0"},
    sourceList=[{"type": "owning_party", "source": "urn:epc:id:pgln:4012345.00000"}],
    bizTransactionList=[{"type": "po", "bizTransaction": "urn:epc:id:gdti:4012345.00009.7"}],
)
AS_LINKS = {
    "parentID": "https://id.gs1.org/00/040123450000000016",
    "childEPCs": ["https://id.gs1.org/01/04012345111118/21/1001", "urn:epc:id:bic:CSQU3054383"],
    "childQuantityList": [
        {"epcClass": "https://id.gs1.org/01/04012345111118/10/L1", "quantity": 2}
    ],
    "readPoint": {"id": "https://id.gs1.org/414/4012345000016"},
    "bizLocation": {"id": "https://id.gs1.org/414/4012345000023"},
    "sourceList": [{"type": "owning_party", "source": "https://id.gs1.org/417/4012345000009"}],
    "bizTransactionList": [
        {"type": "po", "bizTransaction": "https://id.gs1.org/253/40123450000927"}
    ],
}
LINKED = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-0000000000e2",
    epcList=["https://brand.example.com/01/04012345111118/21/2002"],
)


#: The format an answer names for each format asked for (None: no header).
APPLIED = {
    None: "Always_GS1_Digital_Link",
    "No_Preference": "Never_Translates",
    "Never_Translates": "Never_Translates",
    "Always_GS1_Digital_Link": "Always_GS1_Digital_Link",
    "Always_EPC_URN": "Always_EPC_URN",
}


async def returned(client: Client, path: str, epc_format: str | None) -> list[dict[str, Any]]:
    headers = dict(AUTH)
    if epc_format is not None:
        headers["GS1-EPC-Format"] = epc_format
    response = await client.get(path, headers=headers)
    assert response.status == 200, await response.text()
    assert response.headers["GS1-EPC-Format"] == APPLIED[epc_format]
    body = await response.json()
    events: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return events


@pytest.fixture
async def stored(client: Client) -> Client:
    response = await capture(client, document(AS_URNS, LINKED))
    assert response.status == 201, await response.text()
    return client


async def company(client: Client, prefix: str) -> None:
    await ok(client, "POST", "/items/organisation", {"organisation_company_prefix": prefix})


@pytest.mark.parametrize("epc_format", ["No_Preference", "Never_Translates"])
async def test_without_a_translation_asked_for_epcs_are_as_captured(
    stored: Client, epc_format: str | None
) -> None:
    events = await returned(stored, "/v2/epcis/events", epc_format)
    assert [e["eventID"] for e in events] == [EVENT_ID, LINKED["eventID"]]
    assert {k: events[0][k] for k in AS_LINKS} == {k: AS_URNS[k] for k in AS_LINKS}
    assert events[1]["epcList"] == LINKED["epcList"]


@pytest.mark.parametrize("epc_format", [None, "Always_GS1_Digital_Link"])
async def test_digital_link_is_written_for_every_epc_of_a_gs1_key_unless_asked_otherwise(
    stored: Client, epc_format: str | None
) -> None:
    events = await returned(stored, "/v2/epcis/events", epc_format)
    assert {k: events[0][k] for k in AS_LINKS} == AS_LINKS
    assert events[1]["epcList"] == ["https://id.gs1.org/01/04012345111118/21/2002"]


async def test_without_the_header_input_and_output_epcs_are_digital_link(client: Client) -> None:
    transformed = object_event(
        type="TransformationEvent",
        epcList=None,
        action=None,
        inputEPCList=["urn:epc:id:sgtin:4012345.011111.31"],
        outputEPCList=["urn:epc:id:sgtin:4012345.011111.32"],
        outputQuantityList=[{"epcClass": "urn:epc:class:lgtin:4012345.011111.L2"}],
        destinationList=[{"type": "location", "destination": "urn:epc:id:sgln:4012345.00002.0"}],
    )
    assert (await capture(client, document(transformed))).status == 201
    [event] = await returned(client, "/v2/epcis/events", None)
    assert event["inputEPCList"] == ["https://id.gs1.org/01/04012345111118/21/31"]
    assert event["outputEPCList"] == ["https://id.gs1.org/01/04012345111118/21/32"]
    assert event["outputQuantityList"] == [
        {"epcClass": "https://id.gs1.org/01/04012345111118/10/L2"}
    ]
    assert event["destinationList"][0]["destination"] == "https://id.gs1.org/414/4012345000023"


async def test_urns_are_made_where_an_organisation_names_the_company_prefix(
    stored: Client,
) -> None:
    await company(stored, "4012345")
    events = await returned(stored, "/v2/epcis/events", "Always_EPC_URN")
    assert events[0]["childEPCs"] == AS_URNS["childEPCs"]
    assert events[1]["epcList"] == ["urn:epc:id:sgtin:4012345.011111.2002"]


async def test_without_a_known_company_prefix_a_digital_link_stays_as_captured(
    stored: Client,
) -> None:
    await company(stored, "9506000")
    events = await returned(stored, "/v2/epcis/events", "Always_EPC_URN")
    assert events[1]["epcList"] == LINKED["epcList"]


@pytest.mark.parametrize("epc_format", [None, "Always_GS1_Digital_Link"])
async def test_the_format_applies_to_an_event_by_its_id(
    stored: Client, epc_format: str | None
) -> None:
    path = "/v2/epcis/events/" + quote(EVENT_ID, safe="")
    [event] = await returned(stored, path, epc_format)
    assert event["parentID"] == AS_LINKS["parentID"]


async def test_an_event_by_its_id_is_as_captured_when_asked(stored: Client) -> None:
    path = "/v2/epcis/events/" + quote(EVENT_ID, safe="")
    [event] = await returned(stored, path, "Never_Translates")
    assert event["parentID"] == AS_URNS["parentID"]


@pytest.mark.parametrize("epc_format", [None, "Always_GS1_Digital_Link"])
async def test_the_format_applies_to_the_events_of_a_value(
    stored: Client, epc_format: str | None
) -> None:
    path = "/v2/epcis/epcs/urn:epc:id:sgtin:4012345.011111.1001/events"
    [event] = await returned(stored, path, epc_format)
    assert event["childEPCs"] == AS_LINKS["childEPCs"]
    assert event["bizLocation"] == AS_LINKS["bizLocation"]


@pytest.mark.parametrize("epc_format", [None, "Always_GS1_Digital_Link", "Never_Translates"])
async def test_the_format_applies_to_a_named_query(stored: Client, epc_format: str | None) -> None:
    response = await stored.post(
        "/v2/epcis/queries",
        json={"name": "packing", "query": {"eventType": ["AggregationEvent"]}},
        headers=AUTH,
    )
    assert response.status == 201, await response.text()
    [event] = await returned(stored, "/v2/epcis/queries/packing/events", epc_format)
    wanted = AS_URNS if epc_format == "Never_Translates" else AS_LINKS
    assert event["readPoint"] == wanted["readPoint"]
    assert event["sourceList"] == wanted["sourceList"]


async def test_a_page_too_large_to_convert_in_place_is_converted_all_the_same(
    client: Client,
) -> None:
    many = [
        object_event(epcList=[f"urn:epc:id:sgtin:4012345.011111.{n}"])
        for n in range(CONVERTED_IN_PLACE + 5)
    ]
    assert (await capture(client, document(*many))).status == 201
    events = await returned(client, f"/v2/epcis/events?perPage={len(many)}", None)
    assert len(events) == len(many)
    assert all(e["epcList"][0].startswith("https://id.gs1.org/01/") for e in events)
