"""A place or a business step within a time window: the pairs `make bench` measures at
millions of events, and a partner whose read rule is one site asking for a window."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.access.helpers import user_with
from tests.conftest import AS_CAPTURED
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]

HERE = "urn:epc:id:sgln:4012345.00001.0"
THERE = "urn:epc:id:sgln:4012345.00002.0"


def at(number: int, place: str, time: str, step: str = "shipping") -> dict[str, Any]:
    """An event numbered by the last digit of its ID, read and done at `place`."""
    return object_event(
        eventID=f"urn:uuid:00000000-0000-4000-8000-00000000000{number}",
        eventTime=time,
        eventTimeZoneOffset="+00:00",
        bizStep=step,
        readPoint={"id": place},
        bizLocation={"id": place},
    )


EVENTS = [
    at(1, HERE, "2024-03-01T07:59:59.999Z"),
    at(2, HERE, "2024-03-01T08:00:00.000Z"),
    at(3, THERE, "2024-03-01T09:00:00.000Z"),
    at(4, HERE, "2024-03-01T10:30:00.000Z", step="receiving"),
    at(5, HERE, "2024-03-01T12:00:00.000Z"),
    at(6, THERE, "2024-03-01T12:00:00.000Z", step="receiving"),
]
#: 08:00 included, 12:00 excluded.
WINDOW = {"GE_eventTime": "2024-03-01T08:00:00Z", "LT_eventTime": "2024-03-01T12:00:00Z"}


def numbers(body: Any) -> list[str]:
    return [e["eventID"][-1] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]]


async def found(client: Client, params: dict[str, str], token: str | None = None) -> list[str]:
    headers = {"Authorization": f"Bearer {token}"} if token else AS_CAPTURED
    response = await client.get("/v2/epcis/events", params=params, headers=headers)
    assert response.status == 200, await response.text()
    return numbers(await response.json())


@pytest.fixture
async def stored(client: Client) -> Client:
    response = await capture(client, document(*EVENTS))
    assert response.status == 201, await response.text()
    return client


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"EQ_bizLocation": HERE}, ["2", "4"]),
        ({"EQ_bizLocation": "https://id.gs1.org/414/4012345000023"}, ["3"]),
        ({"EQ_readPoint": HERE}, ["2", "4"]),
        ({"EQ_readPoint": THERE}, ["3"]),
        ({"EQ_bizStep": "shipping"}, ["2", "3"]),
        ({"EQ_bizStep": "receiving"}, ["4"]),
        ({"EQ_bizLocation": HERE, "EQ_bizStep": "receiving"}, ["4"]),
    ],
)
async def test_a_place_or_step_with_a_window_finds_its_events_from_start_to_before_end(
    stored: Client, params: dict[str, str], expected: list[str]
) -> None:
    assert await found(stored, {**params, **WINDOW}) == expected


async def test_a_window_at_a_place_with_nothing_there_finds_nothing(stored: Client) -> None:
    window = {"GE_eventTime": "2024-03-01T08:30:00Z", "LT_eventTime": "2024-03-01T10:00:00Z"}
    assert await found(stored, {"EQ_bizLocation": HERE, **window}) == []


@pytest.mark.parametrize(("direction", "expected"), [("ASC", ["2", "4"]), ("DESC", ["4", "2"])])
async def test_a_place_and_window_in_event_time_order(
    stored: Client, direction: str, expected: list[str]
) -> None:
    params = {"EQ_bizLocation": HERE, **WINDOW, "orderBy": "eventTime", "orderDirection": direction}
    assert await found(stored, params) == expected


async def test_a_place_and_window_pages_through_each_event_once(stored: Client) -> None:
    params = {"EQ_readPoint": HERE, **WINDOW, "orderBy": "eventTime", "perPage": "1"}
    response = await stored.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
    seen = numbers(await response.json())
    while "Link" in response.headers:
        link = response.headers["Link"]
        url = link[link.index("<") + 1 : link.index(">")]
        response = await stored.get(url[url.index("/v2/") :], headers=AS_CAPTURED)
        seen += numbers(await response.json())
    assert seen == ["4", "2"]


async def test_a_partner_limited_to_one_site_sees_only_its_window_there(stored: Client) -> None:
    partner = await user_with(
        stored,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizLocation": {"_eq": HERE}},
        },
    )
    assert await found(stored, {}, partner.token) == ["1", "2", "4", "5"]
    assert await found(stored, WINDOW, partner.token) == ["2", "4"]
    assert await found(stored, {"EQ_bizStep": "shipping", **WINDOW}, partner.token) == ["2"]
    assert await found(stored, {"EQ_bizLocation": THERE, **WINDOW}, partner.token) == []
