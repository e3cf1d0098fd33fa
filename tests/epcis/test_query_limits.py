"""persistentDisposition, WD_readPoint, eventCountLimit and maxEventCount."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]


ELSEWHERE = {"id": "urn:epc:id:sgln:4012345.00002.0"}


def at(hour: int, **fields: Any) -> dict[str, Any]:
    return object_event(eventTime=f"2024-03-01T{hour:02d}:00:00.000Z", **fields)


@pytest.fixture
async def stored(client: Client) -> None:
    response = await capture(
        client,
        document(
            at(9, readPoint=ELSEWHERE, persistentDisposition={"set": ["completeness_verified"]}),
            at(
                10,
                readPoint=ELSEWHERE,
                persistentDisposition={"unset": ["urn:epcglobal:cbv:disp:completeness_verified"]},
            ),
            at(11, readPoint={"id": "urn:epc:id:sgln:4012345.00001.7"}),
        ),
    )
    assert response.status == 201, await response.text()


async def hours(client: Client, **params: str) -> list[str]:
    return [e["eventTime"][11:13] for e in await events(client, **params)]


async def test_persistent_disposition_set_matches_in_every_spelling(
    client: Client, stored: None
) -> None:
    spellings = ("completeness_verified", "https://ref.gs1.org/cbv/Disp-completeness_verified")
    for spelling in spellings:
        assert await hours(client, EQ_persistentDisposition_set=spelling) == ["09"]


async def test_persistent_disposition_unset_matches_the_unset_list_only(
    client: Client, stored: None
) -> None:
    assert await hours(client, EQ_persistentDisposition_unset="completeness_verified") == ["10"]


async def test_wd_read_point_covers_the_gln_extensions_of_a_place(
    client: Client, stored: None
) -> None:
    assert await hours(client, WD_readPoint="urn:epc:id:sgln:4012345.00001.0") == ["11"]


async def test_event_count_limit_ends_the_result_after_that_many_events_across_pages(
    client: Client, stored: None
) -> None:
    params = {"orderBy": "eventTime", "orderDirection": "ASC", "eventCountLimit": "2"}
    first = await client.get("/v2/epcis/events", params={**params, "perPage": "1"}, headers=AUTH)
    link = first.headers["Link"]
    token = link[link.index("nextPageToken=") + len("nextPageToken=") : link.index(">")]
    second = await client.get(
        "/v2/epcis/events", params={**params, "perPage": "1", "nextPageToken": token}, headers=AUTH
    )
    assert "Link" not in second.headers
    bodies = [await first.json(), await second.json()]
    times = [
        e["eventTime"][11:13]
        for body in bodies
        for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ]
    assert times == ["09", "10"]


async def test_event_count_limit_of_zero_returns_nothing(client: Client, stored: None) -> None:
    assert await hours(client, orderBy="eventTime", eventCountLimit="0") == []


async def test_more_events_than_max_event_count_is_a_413_query_too_large(
    client: Client, stored: None
) -> None:
    response = await client.get("/v2/epcis/events", params={"maxEventCount": "2"}, headers=AUTH)
    assert response.status == 413
    body = await response.json()
    assert body["type"] == "epcisException:QueryTooLargeException"
    assert "3 events match" in body["detail"]


async def test_max_event_count_lets_a_small_enough_result_through(
    client: Client, stored: None
) -> None:
    assert len(await hours(client, maxEventCount="3")) == 3


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"eventCountLimit": "2"}, "needs orderBy"),
        ({"orderBy": "eventTime", "eventCountLimit": "2", "maxEventCount": "2"}, "exclude"),
        ({"maxEventCount": "-1"}, "whole number"),
        ({"maxEventCount": "1|2"}, "exactly one value"),
    ],
)
async def test_bad_limits_are_a_400(
    client: Client, stored: None, params: dict[str, str], fragment: str
) -> None:
    response = await client.get("/v2/epcis/events", params=params, headers=AUTH)
    assert response.status == 400
    assert fragment in (await response.json())["detail"]
