"""Query answers in EPCIS 2.0 XML: `Accept: application/xml`, and the round trip back."""

from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient
from lxml import etree

from domain.epcis.event_hash import document_context
from infrastructure.epcis_xml import read_xml_document
from tests.conftest import AUTH, NEVER_TRANSLATES
from tests.epcis.streams import listening_stream, next_message
from tests.epcis.test_capture import capture, events
from tests.epcis.test_conformance_corpus import CONFORMING, load
from tests.epcis.xml_documents import as_capture_document, canonical_events

Client = TestClient[Any, Any]
QUERY_NS = "urn:epcglobal:epcis-query:xsd:2"
XML = {**AUTH, "Accept": "application/xml"}


def _event(serial: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": "ObjectEvent",
        "eventTime": "2024-03-01T10:00:00.000+01:00",
        "eventTimeZoneOffset": "+01:00",
        "epcList": [f"urn:epc:id:sgtin:4012345.011111.{serial}"],
        "action": "OBSERVE",
        "bizStep": "shipping",
        "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
        **fields,
    }


def _document(*events: dict[str, Any], context: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "@context": [
            "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld",
            *([context] if context else []),
        ],
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": "2024-03-01T10:00:00Z",
        "epcisBody": {"eventList": list(events)},
    }


async def _xml(client: Client, path: str, **params: str) -> tuple[Any, bytes]:
    response = await client.get(path, params=params, headers=XML)
    assert response.status == 200, await response.text()
    return response, await response.read()


async def test_accept_xml_answers_an_epcis_2_0_xml_query_document(client: Client) -> None:
    await capture(client, _document(_event(1), _event(2)))
    response, body = await _xml(client, "/v2/epcis/events")
    assert response.content_type == "application/xml"
    root = etree.fromstring(body)
    assert root.tag == f"{{{QUERY_NS}}}EPCISQueryDocument"
    assert root.findtext("EPCISBody/{*}QueryResults/queryName") == "SimpleEventQuery"
    listed = root.findall("EPCISBody/{*}QueryResults/resultsBody/EventList/ObjectEvent")
    assert len(listed) == 2
    assert listed[0].findtext("bizStep") == "urn:epcglobal:cbv:bizstep:shipping"


async def test_text_xml_is_answered_with_xml_too(client: Client) -> None:
    await capture(client, _document(_event(1)))
    response = await client.get("/v2/epcis/events", headers={**AUTH, "Accept": "text/xml"})
    assert response.content_type == "application/xml"


async def test_json_stays_the_answer_without_an_accept_or_when_json_is_preferred(
    client: Client,
) -> None:
    await capture(client, _document(_event(1)))
    for accept in (None, "*/*", "application/json, application/xml;q=0.5"):
        headers = dict(AUTH) if accept is None else {**AUTH, "Accept": accept}
        response = await client.get("/v2/epcis/events", headers=headers)
        assert response.content_type == "application/json", accept


async def test_an_xml_page_links_to_the_next_page(client: Client) -> None:
    await capture(client, _document(_event(1), _event(2), _event(3)))
    response, _ = await _xml(client, "/v2/epcis/events", perPage="2")
    assert 'rel="next"' in response.headers["Link"]


async def test_a_named_query_answers_xml_under_its_name(client: Client) -> None:
    await capture(client, _document(_event(1)))
    defined = await client.post(
        "/v2/epcis/queries",
        json={"name": "shipped", "query": {"EQ_bizStep": ["shipping"]}},
        headers=AUTH,
    )
    assert defined.status == 201, await defined.text()
    _, body = await _xml(client, "/v2/epcis/queries/shipped/events")
    assert etree.fromstring(body).findtext("EPCISBody/{*}QueryResults/queryName") == "shipped"


async def test_one_event_by_its_id_answers_xml(client: Client) -> None:
    await capture(
        client, _document(_event(1, eventID="urn:uuid:6c1d1c39-8a2f-4c3d-9e7a-1a2b3c4d5e6f"))
    )
    _, body = await _xml(client, "/v2/epcis/events/urn:uuid:6c1d1c39-8a2f-4c3d-9e7a-1a2b3c4d5e6f")
    events_read = read_xml_document(body, query_documents=True).document["epcisBody"]["eventList"]
    assert [e["eventID"] for e in events_read] == ["urn:uuid:6c1d1c39-8a2f-4c3d-9e7a-1a2b3c4d5e6f"]


async def test_extension_fields_are_elements_in_their_namespace(client: Client) -> None:
    context = {"ex": "https://ns.example.com/epcis/"}
    await capture(
        client,
        _document(_event(1, **{"ex:temp": "4", "ex:box": {"ex:size": "L"}}), context=context),
    )
    _, body = await _xml(client, "/v2/epcis/events")
    event = etree.fromstring(body).find(".//ObjectEvent")
    assert event is not None
    assert event.findtext("{https://ns.example.com/epcis/}temp") == "4"
    assert (
        event.findtext("{https://ns.example.com/epcis/}box/{https://ns.example.com/epcis/}size")
        == "L"
    )


async def _round_trip(client: Client, document: dict[str, Any]) -> None:
    """Capture JSON, query XML, capture that XML: nothing new, nothing in conflict, and
    the XML read back is the stored events."""
    response = await capture(client, document)
    assert response.status == 201, await response.text()
    stored_answer = await client.get("/v2/epcis/events", params={"perPage": "1000"}, headers=AUTH)
    stored_body = await stored_answer.json()
    stored = stored_body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    _, xml = await _xml(client, "/v2/epcis/events", perPage="1000")
    read_back = read_xml_document(xml, query_documents=True).document
    assert canonical_events(read_back["epcisBody"]["eventList"], document_context(read_back)) == (
        canonical_events(stored, document_context(stored_body))
    )
    again = await client.post(
        "/v2/epcis/capture",
        data=as_capture_document(xml),
        headers={**AUTH, "Content-Type": "application/xml"},
    )
    assert again.status == 201, await again.text()
    assert "Captured 0 new event(s)" in (await again.json())["message"]
    assert len(await events(client, perPage="1000")) == len(stored)


@pytest.mark.parametrize("path", CONFORMING, ids=lambda p: p.name)
async def test_an_xml_answer_captured_again_is_the_same_events(client: Client, path: Path) -> None:
    await _round_trip(client, load(path))


async def test_events_whose_documents_bound_one_prefix_apart_round_trip(client: Client) -> None:
    await capture(
        client, _document(_event(1, **{"ex:a": "1"}), context={"ex": "https://one.example/"})
    )
    await _round_trip(
        client, _document(_event(2, **{"ex:a": "2"}), context={"ex": "https://two.example/"})
    )


def test_the_answer_is_well_formed_for_every_kind_of_value() -> None:
    # Numbers, booleans and nested objects all become element text or elements.
    from infrastructure.epcis_xml.writer import query_document_xml

    event = _event(1, **{"ex:n": 1.5, "ex:b": True, "ex:list": ["x", {"ex:y": 2}]})
    body = query_document_xml(
        [orjson.dumps(event).decode()], {"ex": "https://ex.example/"}, "2024-01-01T00:00:00Z", "q"
    )
    read = read_xml_document(body, query_documents=True).document["epcisBody"]["eventList"][0]
    assert read["ex:n"] == "1.5"
    assert read["ex:b"] == "true"
    assert read["ex:list"] == ["x", {"ex:y": "2"}]


async def test_a_websocket_that_accepts_xml_is_sent_xml_query_documents(
    tracepoint: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    await client.post(
        "/v2/epcis/queries",
        json={"name": "shipping", "query": {"EQ_bizStep": ["shipping"]}},
        headers=AUTH,
    )
    headers = {**XML, **NEVER_TRANSLATES}
    async with listening_stream(tracepoint, client, monkeypatch, "shipping", headers) as socket:
        await capture(client, _document(_event(7)))
        root = etree.fromstring((await next_message(socket)).encode())
    assert root.tag == f"{{{QUERY_NS}}}EPCISQueryDocument"
    assert root.findtext(".//ObjectEvent/epcList/epc") == "urn:epc:id:sgtin:4012345.011111.7"
