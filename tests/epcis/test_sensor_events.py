"""Sensor readings about a place: an ObjectEvent with neither `epcList` nor `quantityList`.

The standard's own sensor examples report what a sensor at a read point measured, about no
object at all; GS1's schema accepts such an ObjectEvent when it has a `sensorElementList`
and a `readPoint`. It is stored, named by its CBV hash, and found like any other event.
"""

from typing import Any

from aiohttp.test_utils import TestClient

from domain.epcis.event_hash import event_hash
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

COLD_ROOM = "urn:epc:id:sgln:4012345.00012.0"
DOCK = "urn:epc:id:sgln:4012345.00001.0"


def reading(read_point: str, event_time: str, celsius: float) -> dict[str, Any]:
    return object_event(
        eventTime=event_time,
        eventTimeZoneOffset="+00:00",
        epcList=None,
        bizStep="sensor_reporting",
        disposition=None,
        bizLocation=None,
        readPoint={"id": read_point},
        sensorElementList=[
            {
                "sensorMetadata": {
                    "time": event_time,
                    "deviceID": "urn:epc:id:giai:4000001.111",
                },
                "sensorReport": [
                    {"type": "Temperature", "value": celsius, "uom": "CEL"},
                    {"type": "RelativeHumidity", "value": 68.5, "uom": "P1"},
                ],
            }
        ],
    )


MORNING = reading(COLD_ROOM, "2024-03-01T08:00:00.000Z", 4.5)
NOON = reading(COLD_ROOM, "2024-03-01T12:00:00.000Z", 5.0)
AT_THE_DOCK = reading(DOCK, "2024-03-01T12:00:00.000Z", 14.0)


async def captured(client: Client, *readings: dict[str, Any]) -> None:
    response = await capture(client, document(*readings))
    assert response.status == 201, await response.text()


async def temperatures(client: Client, **params: str) -> list[float]:
    found = await events(client, **params)
    return sorted(e["sensorElementList"][0]["sensorReport"][0]["value"] for e in found)


async def test_a_reading_about_a_place_is_stored_named_by_its_event_hash(client: Client) -> None:
    await captured(client, MORNING)

    (stored,) = await events(client)
    assert stored.pop("eventID") == event_hash(MORNING)
    assert stored.pop("recordTime")
    assert stored == MORNING


async def test_a_reading_about_a_place_is_found_by_its_read_point(client: Client) -> None:
    await captured(client, MORNING, NOON, AT_THE_DOCK)

    assert await temperatures(client, EQ_readPoint=COLD_ROOM) == [4.5, 5.0]
    assert await temperatures(client, EQ_readPoint=DOCK) == [14.0]


async def test_a_reading_about_a_place_is_found_by_its_event_time(client: Client) -> None:
    await captured(client, MORNING, NOON, AT_THE_DOCK)

    found = await temperatures(
        client, GE_eventTime="2024-03-01T07:00:00Z", LT_eventTime="2024-03-01T09:00:00Z"
    )
    assert found == [4.5]
    assert await temperatures(client, GE_eventTime="2024-03-01T12:00:00Z") == [5.0, 14.0]


async def test_a_reading_about_a_place_is_found_by_read_point_and_time_together(
    client: Client,
) -> None:
    await captured(client, MORNING, NOON, AT_THE_DOCK)

    found = await temperatures(client, EQ_readPoint=COLD_ROOM, GE_eventTime="2024-03-01T10:00:00Z")
    assert found == [5.0]


async def test_a_reading_about_a_place_is_an_object_event_about_no_epc(client: Client) -> None:
    await captured(client, MORNING)

    assert await temperatures(client, eventType="ObjectEvent") == [4.5]
    assert await events(client, MATCH_anyEPC="urn:epc:idpat:sgtin:4012345.*.*") == []
