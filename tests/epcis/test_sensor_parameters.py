"""The sensor query parameters and `*_quantity_<uom>`: measured values compared in any
unit of their dimension, sensor metadata and report fields, each parameter on its own."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

DEVICE = "urn:epc:id:giai:4000001.111"
METHOD = "https://example.com/gdti/4012345000054987"
RULES = "https://example.com/rules/1"
MICROBE = "https://www.ncbi.nlm.nih.gov/taxonomy/1235"
SUBSTANCE = "https://identifiers.org/inchikey:CZMRCDWAGMRECN-UGDNZRGBSA-N"

A = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000a",
    sensorElementList=[
        {
            "sensorMetadata": {
                "time": "2024-03-01T09:00:00Z",
                "startTime": "2024-03-01T08:00:00Z",
                "endTime": "2024-03-01T09:30:00Z",
                "deviceID": DEVICE,
                "dataProcessingMethod": METHOD,
                "bizRules": RULES,
            },
            "sensorReport": [
                {
                    "type": "Temperature",
                    "value": 4.0,
                    "uom": "CEL",
                    "minValue": 2.0,
                    "maxValue": 6.0,
                    "sDev": 0.5,
                    "percRank": 50,
                    "percValue": 4.1,
                },
                {"type": "gs1:AbsoluteHumidity", "value": 12, "uom": "A93"},
                {
                    "type": "Temperature",
                    "stringValue": "ok",
                    "hexBinaryValue": "f0",
                    "uriValue": "https://example.com/u",
                    "booleanValue": True,
                    "microorganism": MICROBE,
                    "chemicalSubstance": SUBSTANCE,
                    "deviceID": "urn:epc:id:giai:4000001.222",
                },
            ],
        }
    ],
)
B = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000b",
    sensorElementList=[
        {
            "sensorReport": [
                {"type": "Temperature", "value": 50, "uom": "FAH", "time": "2024-03-02T10:00:00Z"},
                {"type": "Temperature", "value": 5, "uom": "XYZ"},
            ]
        }
    ],
)
C = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000c",
    epcList=[],
    quantityList=[
        {"epcClass": "urn:epc:class:lgtin:4012345.011111.L1", "quantity": 2, "uom": "KGM"}
    ],
)
D = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-00000000000d",
    epcList=[],
    quantityList=[
        {"epcClass": "urn:epc:class:lgtin:4012345.011111.L2", "quantity": 3, "uom": "LBR"}
    ],
)


@pytest.fixture
async def stored(client: Client) -> None:
    response = await capture(client, document(A, B, C, D))
    assert response.status == 201, await response.text()


async def found(client: Client, **params: str) -> str:
    return "".join(sorted(e["eventID"][-1] for e in await events(client, **params)))


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"EQ_type": "Temperature"}, "ab"),
        ({"EQ_type": "https://gs1.org/voc/AbsoluteHumidity"}, "a"),
        ({"EQ_type": "AbsoluteHumidity"}, "a"),
        ({"GE_value_CEL": "5"}, "b"),
        ({"LT_value_FAH": "41"}, "a"),
        ({"GE_value_KEL": "277"}, "ab"),
        ({"EQ_value_CEL": "10|4"}, "ab"),
        ({"GE_value_KGM": "0"}, ""),
        ({"EQ_type": "Temperature", "GE_value_CEL": "5"}, "b"),
        ({"GE_value_XYZ": "5"}, "b"),
        ({"GT_maxValue_CEL": "5"}, "a"),
        ({"LT_minValue_FAH": "37"}, "a"),
        ({"GE_sDev_FAH": "0.8"}, "a"),
        ({"GE_percValue_CEL": "4.1"}, "a"),
        ({"GE_value_GRM": "0.012", "EQ_type": "AbsoluteHumidity"}, ""),
        ({"GE_value_KMQ": "0.012"}, "a"),
        ({"GE_percRank": "50"}, "a"),
        ({"LT_percRank": "50"}, ""),
        ({"EQ_deviceID": DEVICE}, "a"),
        ({"EQ_deviceID": "urn:epc:id:giai:4000001.222"}, "a"),
        ({"EQ_dataProcessingMethod": METHOD}, "a"),
        ({"EQ_bizRules": RULES}, "a"),
        ({"EQ_stringValue": "ok"}, "a"),
        ({"EQ_hexBinaryValue": "F0"}, "a"),
        ({"EQ_uriValue": "https://example.com/u"}, "a"),
        ({"EQ_booleanValue": "true"}, "a"),
        ({"EQ_booleanValue": "false"}, ""),
        ({"EQ_microorganism": MICROBE}, "a"),
        ({"EQ_chemicalSubstance": SUBSTANCE}, "a"),
        ({"GE_startTime": "2024-03-01T07:00:00Z"}, "a"),
        ({"LT_endTime": "2024-03-01T09:00:00Z"}, ""),
        ({"GE_time": "2024-03-02T00:00:00Z"}, "b"),
        ({"LT_time": "2024-03-01T10:00:00Z"}, "a"),
        ({"EXISTS_sensorElementList": ""}, "ab"),
        ({"EXISTS_sensorElementList": "false"}, "abcd"),
        ({"EQ_quantity_KGM": "2"}, "c"),
        ({"GE_quantity_KGM": "1.2"}, "cd"),
        ({"GT_quantity_LBR": "4"}, "c"),
        ({"LT_quantity_GRM": "1500"}, "d"),
        ({"GE_quantity_CEL": "0"}, ""),
    ],
)
async def test_a_sensor_parameter_selects_the_events_whose_data_match(
    client: Client, stored: None, params: dict[str, str], expected: str
) -> None:
    assert await found(client, **params) == expected


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"GE_value_CEL": "warm"}, "is not a number"),
        ({"GE_value_CEL": "1|2"}, "exactly one value"),
        ({"EQ_booleanValue": "maybe"}, "is not true or false"),
        ({"GE_startTime": "yesterday"}, "GE_startTime"),
        ({"GT_percRank": "NaN"}, "finite"),
    ],
)
async def test_a_bad_sensor_parameter_is_a_400(
    client: Client, stored: None, params: dict[str, str], fragment: str
) -> None:
    response = await client.get("/v2/epcis/events", params=params, headers=AUTH)
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:QueryParameterException"
    assert fragment in body["detail"]
