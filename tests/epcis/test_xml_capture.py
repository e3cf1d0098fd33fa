"""XML capture and validate through the API: the corpus, its JSON twins, errors, hardening."""

from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient

from domain.epcis.event_hash import document_context, event_hash
from infrastructure.epcis_xml import read_xml_document
from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.test_capture import events
from tests.epcis.test_conformance_corpus import load
from tests.epcis.xml_documents import (
    HASH_VECTORS,
    JSON_CORPUS,
    XML_CORPUS,
    canonical_events,
    documents,
    object_event,
    with_true_hashes,
    xml_document,
)

Client = TestClient[Any, Any]
VALID_2_0 = documents(XML_CORPUS / "2.0" / "Documents")
INVALID_2_0 = documents(XML_CORPUS / "2.0" / "Invalid")
VALID_1_2 = documents(XML_CORPUS / "1.2" / "Documents")

#: Corpus documents that break the EPCIS standard or its XML schema, with the rule.
BREAKS_THE_STANDARD = {
    # Fields in any order; the 2.0 XSD fixes a sequence.
    "JumbledFieldsOrder.xml",
    # Events and their fields in the epcis namespace; the XSD's elements are unqualified.
    "Namespace_document.xml",
    "Document_with_namespace.xml@1.2",
    # ilmd on an OBSERVE event; a certificationInfo that is no URI.
    "ObjectEvent_all_possible_fields.xml@1.2",
    # A declarationTime without seconds ('2006-11-07T13:00Z') is no xsd:dateTime.
    "TransactionEvent_all_possible_fields.xml@1.2",
    # An empty <quantity/> is no decimal.
    "TransformationEvent.xml@1.2",
    # A bare event, no EPCISDocument around it.
    "Single_event.xml@1.2",
    "Single_event_with_namespace.xml@1.2",
}
#: Twins the repository refuses (tests/epcis/test_conformance_corpus.py): they write the
#: sensor type `gs1:EffectiveDoseRate` as the bare `EffectiveDoseRate`, which is no GS1
#: measurement type, where the XML's CURIE stands for a URI, which a type may be.
REFUSED_TWINS = {"SensorData_with_combined_events", "TransactionEvent_with_userExtensions"}
#: What a JSON twin says that its XML document does not: (event index, field) to leave out.
TWIN_DIFFERENCES: dict[str, set[tuple[int, str]]] = {
    # XML comments are no data; the twin has them as rdfs:comment.
    "ObjectEvent_with_comment": {(0, "rdfs:comment"), (1, "rdfs:comment")},
    # The twin's declarationTime is an hour from the XML's (14:00Z against 14:00+01:00).
    "Combination_of_different_event": {(4, "errorDeclaration")},
}


#: Nine levels of ten: a billion `a`s if the parser expanded entities.
BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY e0 "a">'
    + b"".join(f'<!ENTITY e{level} "{f"&e{level - 1};" * 10}">'.encode() for level in range(1, 10))
    + b']><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" '
    b'creationDate="2024-03-01T10:00:00Z"><EPCISBody><EventList><ObjectEvent>'
    b"<eventTime>2024-03-01T10:00:00Z</eventTime><eventTimeZoneOffset>+00:00"
    b"</eventTimeZoneOffset><epcList><epc>urn:x:&e9;</epc></epcList><action>ADD</action>"
    b"</ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>"
)


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


def _key(path: Path) -> str:
    return path.name if "2.0" in path.parts else f"{path.name}@1.2"


async def capture_xml(client: Client, body: bytes, **headers: str) -> Any:
    return await client.post(
        "/v2/epcis/capture",
        data=body,
        headers={**AUTH, "Content-Type": "application/xml", **headers},
    )


def _twin_events(name: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    twin = load(JSON_CORPUS / f"{name}.json")
    found = twin["epcisBody"]["eventList"]
    for index, field in TWIN_DIFFERENCES.get(name, ()):
        found[index].pop(field, None)
    return found, document_context(twin)


@pytest.mark.parametrize(
    "path",
    [
        p
        for p in VALID_2_0
        if _key(p) not in BREAKS_THE_STANDARD
        and p.stem not in REFUSED_TWINS
        and (JSON_CORPUS / f"{p.stem}.json").exists()
    ],
    ids=lambda p: p.stem,
)
async def test_an_xml_document_is_stored_as_the_same_events_as_its_json_twin(
    client: Client, path: Path
) -> None:
    response = await capture_xml(client, with_true_hashes(_bytes(path)))
    assert response.status == 201, await response.text()
    answer = await client.get("/v2/epcis/events", params={"perPage": "1000"}, headers=AS_CAPTURED)
    body = await answer.json()
    stored = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    for index, field in TWIN_DIFFERENCES.get(path.stem, ()):
        stored[index].pop(field, None)
    twin, twin_namespaces = _twin_events(path.stem)
    assert canonical_events(stored, document_context(body)) == canonical_events(
        twin, twin_namespaces
    )
    # Where the twin names its events other than by hash, they are stored under those IDs;
    # the others have the hash of their twin (one twin's unbound `gs1:Angle` and the
    # other's bare `Angle` are one IRI to the hash: the algorithm's rule 15).
    named = {e["eventID"] for e in twin if not e.get("eventID", "ni:").startswith("ni:")}
    hashed = {event_hash(e, twin_namespaces) for e in twin if e.get("eventID", "ni:") not in named}
    assert named | hashed == {e["eventID"] for e in stored}


@pytest.mark.parametrize(
    "path",
    [p for p in VALID_2_0 + VALID_1_2 if _key(p) not in BREAKS_THE_STANDARD],
    ids=_key,
)
async def test_every_event_of_a_valid_xml_document_is_stored(client: Client, path: Path) -> None:
    body = with_true_hashes(_bytes(path))
    response = await capture_xml(client, body)
    assert response.status == 201, await response.text()
    expected = read_xml_document(body).document["epcisBody"]["eventList"]
    stored = await events(client, perPage="1000")
    assert len(stored) == len({orjson.dumps(e, option=orjson.OPT_SORT_KEYS) for e in expected})


@pytest.mark.parametrize(
    "path",
    INVALID_2_0 + [p for p in VALID_2_0 + VALID_1_2 if _key(p) in BREAKS_THE_STANDARD],
    ids=_key,
)
async def test_an_invalid_xml_document_is_refused_at_element_paths_and_nothing_stored(
    client: Client, path: Path
) -> None:
    response = await capture_xml(client, _bytes(path))
    assert response.status == 400
    assert response.content_type == "text/plain"
    text = await response.text()
    assert text.startswith("EPCIS Document is invalid;\n")
    locations = [line.split(": ", 1)[0] for line in text.splitlines()[1:]]
    assert locations
    assert all("epcisBody." not in location for location in locations), text
    assert await events(client) == []


#: Query documents are no capture documents; two vectors hash apart as XML and JSON-LD
#: (see tests/epcis/test_xml_reading.py).
_NOT_CAPTURED = {
    "epcisQueryDocument",
    "epcisXmlQueryDocHavingEventWithIgnoreFields",
    "SensorDataExamples",
    "epcisDocWithTransformationEventWithMultipleExtensions",
}


def _vector_ids() -> list[Any]:
    return [
        pytest.param(path, id=path.stem)
        for path in documents(HASH_VECTORS)
        if path.stem not in _NOT_CAPTURED
    ]


@pytest.mark.parametrize("path", _vector_ids())
async def test_a_captured_xml_hash_vector_is_stored_under_its_expected_ids(
    client: Client, path: Path
) -> None:
    response = await capture_xml(client, _bytes(path))
    assert response.status == 201, await response.text()
    hashes = _bytes(HASH_VECTORS / f"{path.stem}.hashes").decode().split()
    sent = read_xml_document(_bytes(path)).document["epcisBody"]["eventList"]
    # An event that brings its own eventID keeps it; the others get their hash.
    expected = {event.get("eventID", hash_) for event, hash_ in zip(sent, hashes, strict=True)}
    assert {event["eventID"] for event in await events(client, perPage="1000")} == expected


async def test_text_xml_is_captured_like_application_xml(client: Client) -> None:
    response = await capture_xml(
        client, xml_document(object_event()), **{"Content-Type": "text/xml"}
    )
    assert response.status == 201, await response.text()
    assert len(await events(client)) == 1


async def test_an_xml_event_and_its_json_twin_are_one_event(client: Client) -> None:
    assert (await capture_xml(client, xml_document(object_event()))).status == 201
    twin = {
        "@context": ["https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"],
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": "2024-03-01T10:00:00Z",
        "epcisBody": {
            "eventList": [
                {
                    "type": "ObjectEvent",
                    "eventTime": "2024-03-01T10:00:00.000+01:00",
                    "eventTimeZoneOffset": "+01:00",
                    "epcList": ["urn:epc:id:sgtin:4012345.011111.1001"],
                    "action": "OBSERVE",
                    "bizStep": "shipping",
                    "disposition": "in_transit",
                    "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
                }
            ]
        },
    }
    response = await client.post(
        "/v2/epcis/capture",
        data=orjson.dumps(twin),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert "0 new event(s)" in (await response.json())["message"]
    stored = await events(client)
    assert len(stored) == 1
    assert {k: v for k, v in stored[0].items() if k not in ("eventID", "recordTime")} == twin[
        "epcisBody"
    ]["eventList"][0]


async def test_a_bad_value_is_reported_at_its_element_path(client: Client) -> None:
    body = xml_document(object_event(), object_event(action="SHIPPING"))
    response = await capture_xml(client, body)
    assert response.status == 400
    assert "EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/action: 'SHIPPING'" in (
        await response.text()
    )


async def test_validate_takes_xml_and_names_element_paths(client: Client) -> None:
    headers = {**AUTH, "Content-Type": "application/xml"}
    good = await client.post(
        "/v2/epcis/validate", data=xml_document(object_event()), headers=headers
    )
    assert good.status == 200, await good.text()
    assert (await good.json())["status"] == "valid"
    bad = await client.post(
        "/v2/epcis/validate", data=xml_document(object_event(epc="not a uri")), headers=headers
    )
    assert bad.status == 400
    assert "EPCISDocument/EPCISBody/EventList/ObjectEvent[1]/epcList/epc[1]" in await bad.text()
    assert await events(client) == []


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(BILLION_LAUGHS, id="billion-laughs"),
        pytest.param(
            b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" '
            b'creationDate="2024-03-01T10:00:00Z"><EPCISBody><EventList><ObjectEvent>'
            b"<eventTime>2024-03-01T10:00:00Z</eventTime><eventTimeZoneOffset>+00:00"
            b"</eventTimeZoneOffset><epcList><epc>urn:x:&x;</epc></epcList><action>ADD</action>"
            b"</ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>",
            id="xxe",
        ),
    ],
)
async def test_a_document_with_entities_is_refused_and_nothing_stored(
    client: Client, body: bytes
) -> None:
    response = await capture_xml(client, body)
    assert response.status == 400
    text = await response.text()
    assert "document type declaration" in text
    assert "root:" not in text  # no line of /etc/passwd
    assert await events(client) == []


async def test_xml_that_is_not_well_formed_is_400(client: Client) -> None:
    response = await capture_xml(client, xml_document(object_event())[:-10])
    assert response.status == 400
    assert "not well-formed XML" in await response.text()


async def test_an_xml_document_over_the_event_limit_is_413(client: Client, tracepoint: Any) -> None:
    tracepoint.epcis.capture.max_events = 2
    response = await capture_xml(
        client, xml_document(object_event(), object_event(), object_event())
    )
    assert response.status == 413
    assert "at most 2 events" in (await response.json())["detail"]
    assert await events(client) == []


async def test_another_media_type_is_still_415(client: Client) -> None:
    response = await capture_xml(client, b"a,b", **{"Content-Type": "text/csv"})
    assert response.status == 415
    assert "application/xml" in (await response.json())["detail"]


def _with_event_id(event_id: str, bizstep: str = "shipping") -> str:
    return (
        "<ObjectEvent><eventTime>2024-03-01T10:00:00.000+01:00</eventTime>"
        f"<eventTimeZoneOffset>+01:00</eventTimeZoneOffset><eventID>{event_id}</eventID>"
        "<epcList><epc>urn:epc:id:sgtin:4012345.011111.7</epc></epcList><action>OBSERVE</action>"
        f"<bizStep>urn:epcglobal:cbv:bizstep:{bizstep}</bizStep></ObjectEvent>"
    )


async def _job_errors(client: Client, response: Any) -> list[dict[str, str]]:
    assert response.status == 201, await response.text()
    job = await client.get(response.headers["Location"], headers=AUTH)
    errors: list[dict[str, str]] = (await job.json())["errors"]
    return errors


async def test_a_proceed_job_names_an_invalid_xml_event_by_its_element_path(
    client: Client,
) -> None:
    body = xml_document(object_event(), object_event(action="SHIPPING"))
    response = await capture_xml(client, body, **{"GS1-Capture-Error-Behaviour": "proceed"})
    errors = await _job_errors(client, response)
    assert [e["location"] for e in errors] == [
        "EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/action"
    ]
    assert len(await events(client)) == 1


EVENT_ID = "urn:uuid:0f7e3c1a-6b2d-4e59-8a41-2c9d7b5e3f10"


async def test_a_proceed_job_names_a_conflicting_xml_event_id_by_its_element_path(
    client: Client,
) -> None:
    assert (await capture_xml(client, xml_document(_with_event_id(EVENT_ID)))).status == 201
    body = xml_document(object_event(), _with_event_id(EVENT_ID, "receiving"))
    response = await capture_xml(client, body, **{"GS1-Capture-Error-Behaviour": "proceed"})
    errors = await _job_errors(client, response)
    assert [e["location"] for e in errors] == [
        "EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/eventID"
    ]
    assert "ResourceAlreadyExistsException" in errors[0]["reason"]


async def test_a_409_for_an_xml_document_names_the_element_path_of_the_event_id(
    client: Client,
) -> None:
    assert (await capture_xml(client, xml_document(_with_event_id(EVENT_ID)))).status == 201
    body = xml_document(object_event(), _with_event_id(EVENT_ID, "receiving"))
    response = await capture_xml(client, body)
    assert response.status == 409
    detail = (await response.json(content_type=None))["detail"]
    assert "EPCISDocument/EPCISBody/EventList/ObjectEvent[2]/eventID" in detail
    assert "epcisBody.eventList" not in detail


async def test_a_1_2_event_id_conflict_names_its_base_extension(client: Client) -> None:
    assert (await capture_xml(client, xml_document(_with_event_id(EVENT_ID)))).status == 201
    body = (
        '<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" '
        'creationDate="2024-03-01T10:00:00Z"><EPCISBody><EventList><ObjectEvent>'
        "<eventTime>2024-03-01T10:00:00.000+01:00</eventTime>"
        "<eventTimeZoneOffset>+01:00</eventTimeZoneOffset>"
        f"<baseExtension><eventID>{EVENT_ID}</eventID></baseExtension>"
        "<epcList><epc>urn:epc:id:sgtin:4012345.011111.8</epc></epcList><action>OBSERVE</action>"
        "</ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>"
    ).encode()
    response = await capture_xml(client, body, **{"GS1-Capture-Error-Behaviour": "proceed"})
    errors = await _job_errors(client, response)
    assert [e["location"] for e in errors] == [
        "EPCISDocument/EPCISBody/EventList/ObjectEvent[1]/baseExtension/eventID"
    ]
