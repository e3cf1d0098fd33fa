"""Webhook subscriptions made with `Accept: application/xml`: EPCIS 2.0 XML deliveries,
in the request's `GS1-CBV-XML-Format`, that captured again are the same events."""

import hashlib
import hmac
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from lxml import etree

from application.operations.service_records import change_record
from application.service.runtime import Tracepoint
from domain.epcis.event_hash import document_context
from infrastructure.epcis_xml import read_xml_document
from tests.access.helpers import Client
from tests.conftest import AUTH, NEVER_TRANSLATES
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events
from tests.epcis.test_conformance_corpus import CONFORMING, load
from tests.epcis.xml_documents import as_capture_document, canonical_events
from tests.flows.partner import Partner, running_partner

QUERY_NS = "urn:epcglobal:epcis-query:xsd:2"
XML = {"Accept": "application/xml"}
WEB_URI = "https://ref.gs1.org/cbv/BizStep-shipping"
URN = "urn:epcglobal:cbv:bizstep:shipping"


@pytest.fixture
async def receiver() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


async def subscribe(
    client: Client, receiver: Partner, headers: dict[str, str], query: dict[str, Any]
) -> Any:
    """A stream webhook to `receiver` on a new named query, made with `headers`; from
    the start of time, so what was captured before is delivered too."""
    made = await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps({"name": "watched", "query": query}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert made.status == 201, await made.text()
    controls = {
        "dest": receiver.url,
        "stream": True,
        "signatureToken": "t0ken",
        "initialRecordTime": "2000-01-01T00:00:00Z",
    }
    return await client.post(
        "/v2/epcis/queries/watched/subscriptions",
        data=orjson.dumps(controls),
        headers={**AUTH, "Content-Type": "application/json", **headers},
    )


async def delivery(tracepoint: Tracepoint, receiver: Partner) -> tuple[dict[str, str], bytes]:
    """The headers and body of the one document the subscription delivers now."""
    await tracepoint.epcis.subscriptions.deliver_due()
    [body] = receiver.bodies
    return receiver.headers[0], body


def xml_events(body: bytes) -> list[Any]:
    root = etree.fromstring(body)
    assert root.tag == f"{{{QUERY_NS}}}EPCISQueryDocument"
    return list(root.findall("EPCISBody/{*}QueryResults/resultsBody/EventList/ObjectEvent"))


SHIPPING = {"EQ_bizStep": ["shipping"]}
EVERY_TYPE = {
    "eventType": [
        "ObjectEvent",
        "AggregationEvent",
        "TransactionEvent",
        "TransformationEvent",
        "AssociationEvent",
    ]
}
ROUND_TRIPS = [
    p
    for p in CONFORMING
    if p.name
    in (
        "Combination_of_different_event.json",
        "ObjectEvent_all_possible_fields.json",
        "TransformationEvent_with_error_declaration.json",
        "SensorData_and_extension.json",
        "CurieString_document.json",
    )
]


@pytest.mark.parametrize("path", ROUND_TRIPS, ids=lambda p: p.name)
async def test_an_xml_delivery_captured_again_is_the_same_events(
    tracepoint: Tracepoint, client: Client, receiver: Partner, path: Any
) -> None:
    captured = await capture(client, load(path))
    assert captured.status == 201, await captured.text()
    response = await subscribe(client, receiver, {**XML, **NEVER_TRANSLATES}, EVERY_TYPE)
    assert response.status == 201, await response.text()
    headers, body = await delivery(tracepoint, receiver)
    assert headers["Content-Type"] == "application/xml"
    answer = await client.get(
        "/v2/epcis/events", params={"perPage": "1000"}, headers={**AUTH, **NEVER_TRANSLATES}
    )
    stored_body = await answer.json()
    stored = stored_body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    read_back = read_xml_document(body, query_documents=True).document
    assert canonical_events(read_back["epcisBody"]["eventList"], document_context(read_back)) == (
        canonical_events(stored, document_context(stored_body))
    )
    again = await client.post(
        "/v2/epcis/capture",
        data=as_capture_document(body),
        headers={**AUTH, "Content-Type": "application/xml"},
    )
    assert again.status == 201, await again.text()
    assert "Captured 0 new event(s)" in (await again.json())["message"]
    assert len(await events(client, perPage="1000")) == len(stored)


async def test_an_xml_delivery_names_its_query_and_subscription(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    await capture(client, document(object_event()))
    response = await subscribe(client, receiver, XML, SHIPPING)
    key = (await response.json())["subscriptionID"]
    _, body = await delivery(tracepoint, receiver)
    results = etree.fromstring(body).find("EPCISBody/{*}QueryResults")
    assert results is not None
    assert (results.findtext("queryName"), results.findtext("subscriptionID")) == ("watched", key)


@pytest.mark.parametrize(
    ("accept", "delivered"),
    [
        ("application/xml", "application/xml"),
        ("text/xml", "application/xml"),
        ("application/json;q=0.5, application/xml", "application/xml"),
        (None, "application/json"),
        ("*/*", "application/json"),
        ("application/json, application/xml;q=0.5", "application/json"),
    ],
)
async def test_the_accept_of_the_subscribing_request_chooses_the_delivery_media_type(
    tracepoint: Tracepoint,
    client: Client,
    receiver: Partner,
    accept: str | None,
    delivered: str,
) -> None:
    await capture(client, document(object_event()))
    headers = {} if accept is None else {"Accept": accept}
    response = await subscribe(client, receiver, headers, SHIPPING)
    assert response.status == 201, await response.text()
    assert response.content_type == "application/json"
    sent, _ = await delivery(tracepoint, receiver)
    assert sent["Content-Type"] == delivered


@pytest.mark.parametrize(
    ("headers", "shown"),
    [
        ({}, ("application/json", "Always_GS1_Digital_Link", None)),
        (
            {**XML, "GS1-EPC-Format": "Never_Translates", "GS1-CBV-XML-Format": "Always_URN"},
            ("application/xml", "Never_Translates", "Always_URN"),
        ),
    ],
)
async def test_a_subscription_shows_how_its_deliveries_are_written(
    client: Client, receiver: Partner, headers: dict[str, str], shown: tuple[Any, ...]
) -> None:
    response = await subscribe(client, receiver, headers, SHIPPING)
    assert response.status == 201, await response.text()
    key = (await response.json())["subscriptionID"]
    body = await (await client.get(f"/v2/epcis/subscriptions/{key}", headers=AUTH)).json()
    assert (body["mediaType"], body["epcFormat"], body.get("cbvXmlFormat")) == shown


@pytest.mark.parametrize(
    ("cbv_format", "captured", "written"),
    [
        ("Always_Web_URI", "shipping", WEB_URI),
        ("Always_URN", WEB_URI, URN),
        ("Never_Translates", WEB_URI, WEB_URI),
        (None, "shipping", URN),
    ],
)
async def test_an_xml_delivery_writes_cbv_values_in_the_format_it_was_made_with(
    tracepoint: Tracepoint,
    client: Client,
    receiver: Partner,
    cbv_format: str | None,
    captured: str,
    written: str,
) -> None:
    await capture(client, document(object_event(bizStep=captured)))
    headers = XML if cbv_format is None else {**XML, "GS1-CBV-XML-Format": cbv_format}
    response = await subscribe(client, receiver, headers, SHIPPING)
    assert response.status == 201, await response.text()
    sent, body = await delivery(tracepoint, receiver)
    [event] = xml_events(body)
    assert event.findtext("bizStep") == written
    assert sent["GS1-CBV-XML-Format"] == (cbv_format or "No_Preference")


async def test_the_signature_of_an_xml_delivery_is_an_hmac_of_its_bytes(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    await capture(client, document(object_event()))
    await subscribe(client, receiver, XML, SHIPPING)
    sent, body = await delivery(tracepoint, receiver)
    assert body.startswith(b"<?xml")
    assert sent["GS1-Signature"] == hmac.new(b"t0ken", body, hashlib.sha256).hexdigest()


async def test_a_json_delivery_has_no_cbv_xml_format(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    await capture(client, document(object_event(bizStep=WEB_URI)))
    headers = {"Accept": "application/json", "GS1-CBV-XML-Format": "Always_URN"}
    await subscribe(client, receiver, headers, SHIPPING)
    sent, body = await delivery(tracepoint, receiver)
    assert "GS1-CBV-XML-Format" not in sent
    [event] = orjson.loads(body)["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert event["bizStep"] == WEB_URI


async def test_a_subscription_made_before_media_types_were_kept_delivers_json(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    await capture(client, document(object_event()))
    response = await subscribe(client, receiver, XML, SHIPPING)
    key = (await response.json())["subscriptionID"]
    # As an upgraded store holds it: neither kept.
    unset = {"media_type": None, "cbv_xml_format": None}
    change_record(tracepoint.store, "epcis_subscription", key, unset, "2024-01-01")
    sent, body = await delivery(tracepoint, receiver)
    assert sent["Content-Type"] == "application/json"
    assert orjson.loads(body)["type"] == "EPCISQueryDocument"


@pytest.mark.parametrize(
    "headers",
    [
        {"Accept": "text/csv"},
        {"Accept": "application/json;q=0, application/xml;q=0, */*;q=0"},
        {**XML, "GS1-CBV-XML-Format": "Sometimes_URN"},
    ],
)
async def test_a_subscription_asking_for_what_cannot_be_delivered_is_a_406_and_not_kept(
    client: Client, receiver: Partner, headers: dict[str, str]
) -> None:
    response = await subscribe(client, receiver, headers, SHIPPING)
    assert response.status == 406, await response.text()
    text = await response.text()
    assert "NotAcceptableException" in text
    listed = await client.get("/v2/epcis/subscriptions", headers=AUTH)
    assert await listed.json() == []
