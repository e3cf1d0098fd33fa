"""GS1 documents from outside our corpus, captured as the partners who wrote them send them:
FasTnT's, the EECC's and the OpenEPCIS converter's test documents
(tests/fixtures/outside/README.md names each one's repository, commit, path and licence)."""

from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import AS_CAPTURED, AUTH, FIXTURES
from tests.epcis.test_capture import events
from tests.epcis.test_master_data_queries import READ_POINT, vocabularies
from tests.epcis.xml_documents import as_capture_document

Client = TestClient[Any, Any]
OUTSIDE = FIXTURES / "outside"
MDA = "urn:epcglobal:cbv:mda:"
EGYPT_HC = "https://epcis.gs1eg.org/hc/ns#"


@dataclass(frozen=True)
class Captured:
    """A document the standard accepts, and what reading it back must show."""

    path: str
    #: How many events the document holds.
    total: int
    #: A query that selects some of the document's events, and how many.
    query: dict[str, str]
    found: int
    #: Fields every event the query finds has (`GS1-EPC-Format: Never_Translates`).
    fields: dict[str, Any] = field(default_factory=dict)
    #: ReadPoint master data of its header: element id -> {attribute id: value}.
    master_data: dict[str, dict[str, str]] = field(default_factory=dict)


CAPTURED = [
    # EPCIS 1.2 XML: an SBDH and master data in the header's <extension>; a bizStep URI
    # that is no CBV value (urn:epcglobal:bizstep:packing), kept as sent.
    Captured(
        "fastnt/valid_event_masterdata_1.xml",
        1,
        {"EQ_readPoint": "urn:fastnt:demo:readpoint:0037000.00729.210,432"},
        1,
        {
            "type": "ObjectEvent",
            "action": "ADD",
            "epcList": [
                "urn:epc:id:sscc:4001356.5900000818",
                "urn:epc:id:sscc:4001356.5900000819",
                "urn:epc:id:sscc:4001356.5900000820",
            ],
            "bizStep": "urn:epcglobal:bizstep:packing",
            "disposition": "urn:epcglobal:cbv:disp:loading",
            "eventTimeZoneOffset": "+01:00",
        },
        {"urn:epc:id:sgln:0037000.00729.8201": {MDA + "site": "0037000007296", MDA + "sst": "201"}},
    ),
    # EPCIS 2.0 XML: master data in the header; an ObjectEvent with an empty epcList.
    Captured(
        "fastnt/Request_ObjectEvent_WithMasterdata.xml",
        1,
        {"EQ_bizLocation": "urn:epc:id:sgln:409876.500001.0"},
        1,
        {
            "type": "ObjectEvent",
            "action": "ADD",
            "epcList": [],
            "bizStep": "commissioning",
            "disposition": "active",
        },
        {"urn:epc:id:sgln:0037000.00729.8001": {MDA + "site": "0037000007296"}},
    ),
    # EPCIS 1.2 XML: an SBDH and an empty EventList, which the 1.2 XSD allows.
    Captured("fastnt/Request_WithHeader.xml", 0, {}, 0),
    # GS1 Egypt healthcare: a namespaced extension whose children have no namespace.
    Captured(
        "openepcis-converter/GS1_Eg_EPCIS_Document_1.xml",
        1,
        {"MATCH_epc": "urn:epc:id:sgtin:622300297.0805.2RW9D9VXH8JI30M5GK"},
        1,
        {
            "action": "OBSERVE",
            "bizStep": "dispensing",
            "disposition": "partially_dispensed",
            "gs1egypthc:dosageQuantityList": {
                "gs1egypthc:dosageQuantity": {
                    "epc": "urn:epc:id:sgtin:622300297.0805.2RW9D9VXH8JI30M5GK",
                    "quantity": "1",
                    "uom": "T1",
                }
            },
        },
    ),
    # GS1 Egypt healthcare: Digital Link ids, a CBV 2.0 URI bizStep, cbvmda: fields at the
    # top of the event (not in ILMD) and extensions.
    Captured(
        "openepcis-converter/GS1_Eg_EPCIS_Document_2.xml",
        1,
        {f"EQ_{EGYPT_HC}recallReason": "First 3 Batches"},
        1,
        {
            "epcList": ["https://id.gs1.org/01/09522123112299/21/222628484126"],
            "bizStep": "commissioning",
            "readPoint": {"id": "https://id.gs1.org/414/9522123100005"},
            "cbvmda:lotNumber": "U6DDLQC2B9ZI9GR4PP55",
            "cbvmda:itemExpirationDate": "2023-01-15",
            "gs1egypthc:recallReason": "First 3 Batches",
        },
    ),
    # EPCIS 1.2 XML, 33 events of four types: AssociationEvents in 1.2's
    # <extension><extension> wrappers, source/destination lists in <extension>.
    Captured(
        "eecc/SanitisationEventDataset.xml",
        33,
        {"EQ_bizStep": "installing"},
        2,
        {
            "type": "AssociationEvent",
            "action": "ADD",
            "bizStep": "installing",
            "readPoint": {"id": "urn:epc:id:sgln:0614141.00012.0"},
        },
    ),
]


@dataclass(frozen=True)
class Refused:
    """A document the standard refuses, and the locations its §7 answer must name."""

    path: str
    locations: list[str]
    master_data: list[str]


REFUSED = [
    # EPCIS 2.0 JSON Schema: certificationInfo is a URI ('test' is none); a sensorElement
    # has no `type` (FasTnT writes "epcis:SensorElement"); a disposition is a CBV bare word
    # or a URI ('test', 'toto' are neither).
    Refused(
        "fastnt/Request_ObjectEvent_WithMasterdata.json",
        [
            "epcisBody.eventList.0.certificationInfo",
            "epcisBody.eventList.0.sensorElementList.0.type",
            "epcisBody.eventList.0.persistentDisposition.set.1",
            "epcisBody.eventList.0.persistentDisposition.set.2",
        ],
        ["urn:epc:id:sgln:0037000.00729.8000"],
    ),
    # A master-data attribute is named by a URI ('internalid' is none).
    Refused(
        "fastnt/Request_ObjectEvent_WithMultipleMasterdata.json",
        ["epcisHeader.epcisMasterData.vocabularyList.1.vocabularyElementList.0.attributes.1.id"],
        ["urn:epc:id:sgln:0037000.00729.8000", "urn:epc:id:sgln:0037000.00729.8002"],
    ),
]


async def capture(client: Client, path: str) -> Any:
    media_type = "application/xml" if path.endswith(".xml") else "application/ld+json"
    return await client.post(
        "/v2/epcis/capture",
        data=(OUTSIDE / path).read_bytes(),
        headers={**AUTH, "Content-Type": media_type},
    )


def _id(document: Captured | Refused) -> str:
    return document.path


@pytest.mark.parametrize("document", CAPTURED, ids=_id)
async def test_a_document_the_standard_accepts_is_captured(
    client: Client, document: Captured
) -> None:
    response = await capture(client, document.path)
    assert response.status == 201, await response.text()
    assert f"Captured {document.total} new event(s)" in (await response.json())["message"]


@pytest.mark.parametrize("document", CAPTURED, ids=_id)
async def test_its_events_read_back_as_sent_by_a_query_that_selects_them(
    client: Client, document: Captured
) -> None:
    assert (await capture(client, document.path)).status == 201
    found = await events(client, **document.query)
    assert len(found) == document.found
    for event in found:
        assert {name: event.get(name) for name in document.fields} == document.fields


@pytest.mark.parametrize("document", CAPTURED, ids=_id)
async def test_sent_again_it_is_the_same_events_with_the_same_ids(
    client: Client, document: Captured
) -> None:
    assert (await capture(client, document.path)).status == 201
    first = sorted(event["eventID"] for event in await events(client, perPage="100"))
    assert len(set(first)) == document.total
    again = await capture(client, document.path)
    assert again.status == 201
    assert f"{document.total} already present" in (await again.json())["message"]
    assert sorted(event["eventID"] for event in await events(client, perPage="100")) == first


@pytest.mark.parametrize("document", [d for d in CAPTURED if d.total], ids=_id)
async def test_its_xml_answer_captured_again_is_the_same_events(
    client: Client, document: Captured
) -> None:
    assert (await capture(client, document.path)).status == 201
    before = await events(client, perPage="100")
    answer = await client.get(
        "/v2/epcis/events",
        params={"perPage": "100"},
        headers={**AS_CAPTURED, "Accept": "application/xml"},
    )
    assert answer.status == 200, await answer.text()
    again = await client.post(
        "/v2/epcis/capture",
        data=as_capture_document(await answer.read()),
        headers={**AUTH, "Content-Type": "application/xml"},
    )
    assert again.status == 201, await again.text()
    assert "Captured 0 new event(s)" in (await again.json())["message"]
    assert await events(client, perPage="100") == before


@pytest.mark.parametrize("document", [d for d in CAPTURED if d.master_data], ids=_id)
async def test_master_data_of_its_header_answers_a_master_data_query(
    client: Client, document: Captured
) -> None:
    assert (await capture(client, document.path)).status == 201
    found = await vocabularies(client, vocabularyName=[READ_POINT])
    assert {
        element_id: {a["id"]: a["attribute"] for a in element["attributes"]}
        for element_id, element in found.items()
    } == document.master_data


@pytest.mark.parametrize("document", REFUSED, ids=_id)
async def test_a_document_the_standard_refuses_is_answered_400_naming_each_fault(
    client: Client, document: Refused
) -> None:
    response = await capture(client, document.path)
    assert response.status == 400
    lines = (await response.text()).splitlines()
    assert lines[0] == "EPCIS Document is invalid;"
    assert [line.split(": ", 1)[0] for line in lines[1:]] == document.locations


@pytest.mark.parametrize("document", REFUSED, ids=_id)
async def test_a_refused_document_leaves_neither_events_nor_master_data(
    client: Client, document: Refused
) -> None:
    assert (await capture(client, document.path)).status == 400
    assert await events(client) == []
    assert not set(await vocabularies(client)) & set(document.master_data)


async def _epc_lists(client: Client, epc_format: str) -> list[list[str]]:
    response = await client.get("/v2/epcis/events", headers={**AUTH, "GS1-EPC-Format": epc_format})
    assert response.status == 200, await response.text()
    body = await response.json()
    return [
        event["epcList"] for event in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ]


async def test_the_sscc_urns_of_a_1_2_document_are_answered_as_digital_links(
    client: Client,
) -> None:
    assert (await capture(client, "fastnt/valid_event_masterdata_1.xml")).status == 201
    # Extension digit, company prefix, serial reference, check digit (computed by hand).
    assert await _epc_lists(client, "Always_GS1_Digital_Link") == [
        [
            "https://id.gs1.org/00/540013569000008188",
            "https://id.gs1.org/00/540013569000008195",
            "https://id.gs1.org/00/540013569000008201",
        ]
    ]


async def test_a_digital_link_epc_stays_as_captured_when_urns_are_asked(client: Client) -> None:
    # A Digital Link does not say where its company prefix ends (README, GS1-EPC-Format).
    assert (await capture(client, "openepcis-converter/GS1_Eg_EPCIS_Document_2.xml")).status == 201
    assert await _epc_lists(client, "Always_EPC_URN") == [
        ["https://id.gs1.org/01/09522123112299/21/222628484126"]
    ]
