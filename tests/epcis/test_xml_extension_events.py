"""Events of an extension type, and the JSON-LD `id` of an event, in XML: written where the
2.0 XSD leaves room (`EventList/extension/<Name type="IRI">`, `rdf:about`), read back the same.
"""

from typing import Any

import pytest
from lxml import etree

from infrastructure.epcis_xml import read_xml_document
from tests.access.helpers import Client
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture, events
from tests.epcis.test_xml_capture import capture_xml
from tests.epcis.test_xml_queries import XML, _round_trip
from tests.epcis.xml_documents import xml_document

NAMESPACE = "https://example.com/epcis/"
RDF_ABOUT = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about"
INSPECTION = {
    "type": "ex:InspectionEvent",
    "id": "https://example.com/events/inspection-1",
    "eventTime": "2024-03-01T10:00:00.000Z",
    "eventTimeZoneOffset": "+00:00",
    "epcList": ["urn:epc:id:sgtin:4012345.011111.1"],
    "bizStep": "inspecting",
    "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
    "ex:inspector": "J. Doe",
}


def _inspection_document(*more: dict[str, Any]) -> dict[str, Any]:
    return document(INSPECTION, *more, context=[CONTEXT, {"ex": NAMESPACE}])


async def _xml_events(client: Client) -> Any:
    response = await client.get("/v2/epcis/events", headers=XML)
    assert response.status == 200, await response.text()
    event_list = etree.fromstring(await response.read()).find(".//EventList")
    assert event_list is not None
    return event_list


async def test_an_extension_event_is_written_in_the_event_lists_extension(
    client: Client,
) -> None:
    assert (await capture(client, _inspection_document())).status == 201
    event_list = await _xml_events(client)
    written = event_list.find("extension/InspectionEvent")
    assert written is not None
    assert written.get("type") == "ex:InspectionEvent"
    assert written.nsmap["ex"] == NAMESPACE
    assert written.findtext("bizStep") == "urn:epcglobal:cbv:bizstep:inspecting"
    assert written.findtext(f"{{{NAMESPACE}}}inspector") == "J. Doe"


async def test_the_json_ld_id_of_an_event_is_written_as_rdf_about(client: Client) -> None:
    event = object_event(id="https://example.com/events/object-1")
    assert (await capture(client, document(event))).status == 201
    written = (await _xml_events(client)).find("ObjectEvent")
    assert written.get(RDF_ABOUT) == "https://example.com/events/object-1"


async def test_an_extension_event_and_an_event_id_round_trip_through_xml(
    client: Client,
) -> None:
    await _round_trip(
        client,
        _inspection_document(object_event(id="https://example.com/events/object-2")),
    )
    stored = await events(client)
    assert {e.get("id") for e in stored} == {
        "https://example.com/events/inspection-1",
        "https://example.com/events/object-2",
    }


async def test_an_xml_extension_event_is_captured_with_its_type_iri(client: Client) -> None:
    body = xml_document(
        f'<extension><CoolingEvent type="{NAMESPACE}CoolingEvent" '
        'rdf:about="https://example.com/events/cooling-1">'
        "<eventTime>2024-03-01T10:00:00.000Z</eventTime>"
        "<eventTimeZoneOffset>+00:00</eventTimeZoneOffset>"
        "<readPoint><id>urn:epc:id:sgln:4012345.00001.0</id></readPoint>"
        "</CoolingEvent></extension>",
        namespaces='xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"',
    )
    response = await capture_xml(client, body)
    assert response.status == 201, await response.text()
    [stored] = await events(client, eventType=NAMESPACE + "CoolingEvent")
    assert stored["type"] == NAMESPACE + "CoolingEvent"
    assert stored["id"] == "https://example.com/events/cooling-1"
    assert stored["readPoint"] == {"id": "urn:epc:id:sgln:4012345.00001.0"}


@pytest.mark.parametrize(
    "element",
    [
        "<CoolingEvent><eventTime>2024-03-01T10:00:00.000Z</eventTime></CoolingEvent>",
        '<ex:CoolingEvent xmlns:ex="https://example.com/" type="https://example.com/C"/>',
    ],
    ids=["no-type", "qualified"],
)
async def test_an_element_in_the_event_lists_extension_that_names_no_type_is_refused(
    client: Client, element: str
) -> None:
    body = xml_document(f"<extension>{element}</extension>")
    response = await capture_xml(client, body)
    assert response.status == 400
    text = await response.text()
    assert "EPCISDocument/EPCISBody/EventList/extension[1]/" in text
    assert '"type" attribute' in text
    assert await events(client) == []


def test_an_extension_event_type_that_is_no_xml_name_is_written_as_event() -> None:
    from infrastructure.epcis_xml.writer import capture_document_xml

    event = {**INSPECTION, "type": "https://example.com/types/9-cooling"}
    body = capture_document_xml([event], {"ex": NAMESPACE}, "2024-03-01T10:00:00Z")
    written = etree.fromstring(body).find("EPCISBody/EventList/extension/Event")
    assert written is not None
    assert written.get("type") == "https://example.com/types/9-cooling"
    read = read_xml_document(body).document["epcisBody"]["eventList"][0]
    assert read["type"] == "https://example.com/types/9-cooling"


async def test_a_bad_value_in_an_xml_extension_event_is_named_by_its_element_path(
    client: Client,
) -> None:
    body = xml_document(
        f'<extension><CoolingEvent type="{NAMESPACE}CoolingEvent">'
        "<eventTime>yesterday</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset>"
        "</CoolingEvent></extension>"
    )
    response = await capture_xml(client, body)
    assert response.status == 400
    assert "EPCISDocument/EPCISBody/EventList/extension[1]/CoolingEvent[1]/eventTime" in (
        await response.text()
    )
