"""`GET /v2/epcis/events`: every supported parameter, ordering, paging and bad input."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import aggregation_event, document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]

SHIPPED = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-000000000001",
    eventTime="2024-03-01T08:00:00.000Z",
    eventTimeZoneOffset="+00:00",
    epcList=["urn:epc:id:sgtin:4012345.011111.1001"],
    bizStep="urn:epcglobal:cbv:bizstep:shipping",
    disposition="https://ref.gs1.org/cbv/Disp-in_transit",
    readPoint={"id": "urn:epc:id:sgln:4012345.00001.0"},
    bizLocation={"id": "urn:epc:id:sgln:4012345.00001.7"},
    bizTransactionList=[
        {"type": "po", "bizTransaction": "urn:epcglobal:cbv:bt:4012345000009:PO-1"}
    ],
    sourceList=[{"type": "owning_party", "source": "urn:epc:id:pgln:4012345.00000"}],
)
RECEIVED = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-000000000002",
    eventTime="2024-03-01T12:00:00.000+02:00",
    eventTimeZoneOffset="+02:00",
    epcList=["https://id.gs1.org/01/04012345111118/21/1002"],
    action="ADD",
    bizStep="receiving",
    disposition="in_progress",
    readPoint={"id": "urn:epc:id:sgln:4012345.00002.0"},
    bizLocation={"id": "urn:epc:id:sgln:4012345.00002.0"},
    quantityList=[
        {"epcClass": "urn:epc:class:lgtin:4012345.011111.LOT7", "quantity": 20, "uom": "KGM"}
    ],
)
PACKED = aggregation_event(
    "urn:epc:id:sscc:4012345.0000000001",
    ["urn:epc:id:sgtin:4012345.011111.1001", "urn:epc:id:sgtin:4012345.022222.5"],
    eventID="urn:uuid:00000000-0000-4000-8000-000000000003",
    eventTime="2024-03-01T09:30:00.000Z",
    childQuantityList=[{"epcClass": "urn:epc:idpat:sgtin:4012345.033333.*", "quantity": 5.5}],
)
TRANSFORMED: dict[str, Any] = {
    "type": "TransformationEvent",
    "eventID": "urn:uuid:00000000-0000-4000-8000-000000000004",
    "eventTime": "2024-03-02T10:00:00.000Z",
    "eventTimeZoneOffset": "+00:00",
    "inputEPCList": ["urn:epc:id:sgtin:4012345.044444.1"],
    "outputEPCList": ["urn:epc:id:sgtin:4012345.055555.1"],
    "inputQuantityList": [{"epcClass": "urn:epc:class:lgtin:4012345.066666.A1", "quantity": 3}],
    "outputQuantityList": [{"epcClass": "urn:epc:class:lgtin:4012345.077777.B2", "quantity": 1}],
    "transformationID": "urn:epc:id:gdti:4012345.00001.T-9",
    "bizStep": "commissioning",
}
ALL = [SHIPPED, RECEIVED, PACKED, TRANSFORMED]


def ids(events: list[dict[str, Any]]) -> list[str]:
    return [e["eventID"][-1] for e in events]


async def query(client: Client, params: dict[str, str] | list[tuple[str, str]]) -> Any:
    return await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)


async def matching(client: Client, params: dict[str, str] | list[tuple[str, str]]) -> list[str]:
    response = await query(client, params)
    assert response.status == 200, await response.text()
    body = await response.json()
    return sorted(ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]))


@pytest.fixture
async def stored(client: Client) -> Client:
    response = await capture(client, document(*ALL))
    assert response.status == 201, await response.text()
    return client


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, ["1", "2", "3", "4"]),
        ({"eventType": "ObjectEvent"}, ["1", "2"]),
        ({"eventType": "AggregationEvent|TransformationEvent"}, ["3", "4"]),
        ({"GE_eventTime": "2024-03-01T09:00:00Z"}, ["2", "3", "4"]),
        ({"LT_eventTime": "2024-03-01T09:00:00Z"}, ["1"]),
        (
            {"GE_eventTime": "2024-03-01T11:00:00+02:00", "LT_eventTime": "2024-03-01T10:00:01Z"},
            ["2", "3"],
        ),
        ({"EQ_action": "ADD"}, ["2", "3"]),
        ({"EQ_bizStep": "shipping"}, ["1"]),
        ({"EQ_bizStep": "https://ref.gs1.org/cbv/BizStep-receiving"}, ["2"]),
        ({"EQ_bizStep": "urn:epcglobal:cbv:bizstep:commissioning"}, ["4"]),
        ({"EQ_disposition": "in_transit"}, ["1"]),
        ({"EQ_disposition": "urn:epcglobal:cbv:disp:in_progress"}, ["2", "3"]),
        ({"EQ_readPoint": "urn:epc:id:sgln:4012345.00002.0"}, ["2"]),
        ({"EQ_readPoint": "https://id.gs1.org/414/4012345000016"}, ["1", "3"]),
        ({"EQ_bizLocation": "urn:epc:id:sgln:4012345.00001.7"}, ["1"]),
        ({"WD_bizLocation": "urn:epc:id:sgln:4012345.00001.0"}, ["1"]),
        ({"EQ_transformationID": "urn:epc:id:gdti:4012345.00001.T-9"}, ["4"]),
        ({"EQ_eventID": "urn:uuid:00000000-0000-4000-8000-000000000002"}, ["2"]),
        ({"MATCH_epc": "urn:epc:id:sgtin:4012345.011111.1001"}, ["1", "3"]),
        ({"MATCH_epc": "https://id.gs1.org/01/04012345111118/21/1001"}, ["1", "3"]),
        ({"MATCH_epc": "urn:epc:id:sgtin:4012345.011111.1002"}, ["2"]),
        ({"MATCH_epc": "urn:epc:idpat:sgtin:4012345.011111.*"}, ["1", "2", "3"]),
        ({"MATCH_epc": "urn:epc:idpat:sgtin:4012345.*.*"}, ["1", "2", "3"]),
        ({"MATCH_epc": "https://id.gs1.org/01/04012345111118/21/*"}, ["1", "2", "3"]),
        ({"MATCH_parentID": "urn:epc:id:sscc:4012345.0000000001"}, ["3"]),
        ({"MATCH_inputEPC": "urn:epc:id:sgtin:4012345.044444.1"}, ["4"]),
        ({"MATCH_outputEPC": "urn:epc:id:sgtin:4012345.055555.1"}, ["4"]),
        ({"MATCH_anyEPC": "urn:epc:id:sscc:4012345.0000000001"}, ["3"]),
        ({"MATCH_anyEPC": "urn:epc:id:sgtin:4012345.055555.1"}, ["4"]),
        ({"MATCH_epcClass": "urn:epc:class:lgtin:4012345.011111.LOT7"}, ["2"]),
        ({"MATCH_epcClass": "urn:epc:idpat:sgtin:4012345.011111.*"}, ["2"]),
        ({"MATCH_epcClass": "urn:epc:idpat:sgtin:4012345.033333.*"}, ["3"]),
        ({"MATCH_inputEPCClass": "urn:epc:class:lgtin:4012345.066666.A1"}, ["4"]),
        ({"MATCH_outputEPCClass": "urn:epc:class:lgtin:4012345.077777.B2"}, ["4"]),
        ({"MATCH_anyEPCClass": "urn:epc:class:lgtin:4012345.077777.B2"}, ["4"]),
        ({"EQ_quantity": "20"}, ["2"]),
        ({"GT_quantity": "5"}, ["2", "3"]),
        ({"GE_quantity": "5.5", "LT_quantity": "20"}, ["3"]),
        ({"LE_quantity": "3"}, ["4"]),
        ({"LT_quantity": "1"}, []),
        ({"EQ_bizTransaction_po": "urn:epcglobal:cbv:bt:4012345000009:PO-1"}, ["1"]),
        ({"EQ_source_owning_party": "urn:epc:id:pgln:4012345.00000"}, ["1"]),
        ({"EQ_destination_owning_party": "urn:epc:id:pgln:4012345.00000"}, []),
        ({"eventType": "ObjectEvent", "EQ_bizStep": "receiving"}, ["2"]),
    ],
)
async def test_parameter_selects_the_matching_events(
    stored: Client, params: dict[str, str], expected: list[str]
) -> None:
    assert await matching(stored, params) == expected


async def test_a_repeated_parameter_matches_any_of_its_values(stored: Client) -> None:
    params = [("EQ_bizStep", "shipping"), ("EQ_bizStep", "receiving")]
    assert await matching(stored, params) == ["1", "2"]


async def test_a_time_offset_sent_unencoded_in_the_query_string_is_understood(
    stored: Client,
) -> None:
    response = await stored.get(
        "/v2/epcis/events?GE_eventTime=2024-03-01T11:00:00+02:00&LT_eventTime=2024-03-01T09:30:00Z",
        headers=AUTH,
    )
    body = await response.json()
    assert ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == []


async def test_record_time_window_selects_events_by_when_they_were_captured(
    stored: Client,
) -> None:
    assert await matching(stored, {"GE_recordTime": "2000-01-01T00:00:00Z"}) == ["1", "2", "3", "4"]
    assert await matching(stored, {"LT_recordTime": "2000-01-01T00:00:00Z"}) == []


async def test_order_by_event_time_ascending_and_descending(stored: Client) -> None:
    async def order(direction: str) -> list[str]:
        response = await query(stored, {"orderBy": "eventTime", "orderDirection": direction})
        body = await response.json()
        return ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"])

    assert await order("ASC") == ["1", "3", "2", "4"]
    assert await order("DESC") == ["4", "2", "3", "1"]


async def test_order_by_without_a_direction_is_descending(stored: Client) -> None:
    response = await query(stored, {"orderBy": "eventTime"})
    body = await response.json()
    assert ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == [
        "4",
        "2",
        "3",
        "1",
    ]


async def test_order_direction_without_order_by_is_ignored(stored: Client) -> None:
    response = await query(stored, {"orderDirection": "DESC"})
    body = await response.json()
    assert ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == [
        "1",
        "2",
        "3",
        "4",
    ]


async def test_a_nul_character_in_a_path_is_404_not_a_crash(client: Client) -> None:
    for path in ("/v2/epcis/capture/a%00b", "/v2/epcis/queries/a%00b"):
        response = await client.get(path, headers=AUTH)
        assert response.status == 404, path


async def test_the_response_is_an_epcis_query_document(stored: Client) -> None:
    response = await query(stored, {"eventType": "ObjectEvent"})
    body = await response.json()
    assert body["type"] == "EPCISQueryDocument"
    assert body["schemaVersion"] == "2.0"
    assert body["@context"][0].startswith("https://ref.gs1.org/standards/epcis/")
    assert body["epcisBody"]["queryResults"]["queryName"] == "SimpleEventQuery"


async def test_every_returned_event_equals_the_captured_one(stored: Client) -> None:
    response = await query(stored, {})
    body = await response.json()
    returned = {
        e["eventID"]: e for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    }
    for event in ALL:
        got = dict(returned[event["eventID"]])
        got.pop("recordTime")
        assert got == event


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"EQ_nonsense": "x"}, "EQ_nonsense is not a known EPCIS query parameter"),
        ({"HASATTR_bizStep": "urn:example:attr"}, "readPoint and bizLocation"),
        ({"EXISTS_errorDeclaration": "maybe"}, "EXISTS_errorDeclaration"),
        ({"GE_errorDeclarationTime": "soon"}, "GE_errorDeclarationTime"),
        ({"eventCountLimit": "5"}, "needs orderBy"),
        ({"GT_ILMD_example:lot": "x"}, "compares numbers and date-times"),
        ({"eventType": "QuantityEvent"}, "QuantityEvent"),
        ({"GE_eventTime": "last tuesday"}, "GE_eventTime"),
        ({"GE_eventTime": "2024-03-01T10:00:00"}, "time zone"),
        ({"EQ_action": "SHIP"}, "EQ_action"),
        ({"GT_quantity": "many"}, "not a number"),
        ({"orderBy": "bizStep"}, "orderBy"),
        ({"orderDirection": "UP"}, "orderDirection"),
        ({"perPage": "0"}, "perPage"),
        ({"perPage": "100000"}, "perPage"),
        ({"nextPageToken": "forged"}, "nextPageToken"),
        ({"EQ_bizStep": ""}, "EQ_bizStep"),
        ({"perPage": "²"}, "perPage"),
        ({"perPage": "9" * 5000}, "perPage"),
        ({"LT_quantity": "NaN"}, "finite"),
        ({"GT_quantity": "inf"}, "finite"),
        ({"GT_INNER_quantity": "5"}, "GT_INNER_quantity"),
        ({"EQ_ILMD_lot_quantity": "5"}, "not a known EPCIS query parameter"),
        ({"EQ_bizTransaction_": "x"}, "names no type"),
        ({"EQ_eventID": "a\x00b"}, "NUL"),
        ({"EQ_eventID": "|".join(str(i) for i in range(1001))}, "more than 1000"),
    ],
)
async def test_bad_parameters_get_400_with_a_query_parameter_exception(
    stored: Client, params: dict[str, str], fragment: str
) -> None:
    response = await query(stored, params)
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:QueryParameterException"
    assert body["status"] == 400
    assert body["title"]
    assert fragment in body["detail"]


async def test_query_without_a_token_is_401(client: Client) -> None:
    response = await client.get("/v2/epcis/events")
    assert response.status == 401
    assert (await response.json())["type"] == "epcisException:SecurityException"


async def test_an_event_listing_one_epc_twice_is_stored_and_found_once(
    client: TestClient[Any, Any],
) -> None:
    epc = "urn:epc:id:sgtin:4012345.011111.77"
    assert (await capture(client, document(object_event(epcList=[epc, epc])))).status == 201
    response = await client.get("/v2/epcis/events", params={"MATCH_epc": epc}, headers=AUTH)
    body = await response.json()
    assert len(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == 1
