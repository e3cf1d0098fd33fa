"""Paging through `/v2/epcis/events`: perPage, nextPageToken and the Link header."""

import asyncio
import re
import uuid
from typing import Any

from aiohttp.test_utils import TestClient
from yarl import URL

from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]
LINK = re.compile(r'^<(?P<url>[^>]+)>; rel="next"$')


async def page(client: Client, url: str, **params: str) -> tuple[list[str], str | None]:
    response = await client.get(url, params=params or None, headers=AUTH)
    assert response.status == 200, await response.text()
    body = await response.json()
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    link = response.headers.get("Link")
    next_url = None
    if link:
        match = LINK.match(link)
        assert match, link
        # The link is absolute; the test client wants the path and query.
        next_url = URL(match["url"]).path_qs
    return [e["eventID"] for e in events], next_url


async def all_pages(client: Client, url: str, **params: str) -> list[str]:
    seen, next_url = await page(client, url, **params)
    while next_url:
        more, next_url = await page(client, next_url)
        seen.extend(more)
    return seen


async def test_default_page_size_is_30(client: Client) -> None:
    await capture(client, document(*[object_event() for _ in range(35)]))
    first, next_url = await page(client, "/v2/epcis/events")
    assert len(first) == 30
    assert next_url is not None


async def test_the_last_page_has_no_next_link(client: Client) -> None:
    await capture(client, document(*[object_event() for _ in range(3)]))
    events, next_url = await page(client, "/v2/epcis/events", perPage="3")
    assert len(events) == 3
    assert next_url is None


async def test_following_next_links_returns_every_event_once_in_order(client: Client) -> None:
    await capture(client, document(*[object_event() for _ in range(25)]))
    everything, _ = await page(client, "/v2/epcis/events", perPage="100")
    paged = await all_pages(client, "/v2/epcis/events", perPage="7")
    assert paged == everything
    assert len(set(paged)) == 25


async def test_paging_by_event_time_descending_returns_every_event_once(client: Client) -> None:
    times = [f"2024-03-01T10:{m:02d}:00.000Z" for m in (5, 1, 9, 1, 3, 7, 1, 2)]
    await capture(client, document(*[object_event(eventTime=t) for t in times]))
    expected, _ = await page(
        client, "/v2/epcis/events", orderBy="eventTime", orderDirection="DESC", perPage="100"
    )
    paged = await all_pages(
        client, "/v2/epcis/events", orderBy="eventTime", orderDirection="DESC", perPage="3"
    )
    assert paged == expected
    assert len(set(paged)) == len(times)


async def test_the_next_link_keeps_the_query_parameters(client: Client) -> None:
    await capture(client, document(*[object_event(bizStep="receiving") for _ in range(3)]))
    await capture(client, document(*[object_event(bizStep="shipping") for _ in range(3)]))
    paged = await all_pages(client, "/v2/epcis/events", EQ_bizStep="receiving", perPage="2")
    assert len(paged) == 3


async def test_a_token_used_with_another_query_is_400(client: Client) -> None:
    await capture(client, document(*[object_event() for _ in range(3)]))
    _, next_url = await page(client, "/v2/epcis/events", perPage="1")
    assert next_url is not None
    token = next_url.split("nextPageToken=")[1]
    response = await client.get(
        "/v2/epcis/events",
        params={"perPage": "1", "EQ_bizStep": "receiving", "nextPageToken": token},
        headers=AUTH,
    )
    assert response.status == 400
    assert "different query" in (await response.json())["detail"]


async def test_paging_while_captures_go_on_never_skips_or_repeats(client: Client) -> None:
    await capture(client, document(*[object_event() for _ in range(20)]))
    before, _ = await page(client, "/v2/epcis/events", perPage="100")
    assert len(before) == 20

    # The first page fixes the snapshot; every later page is asked for while a capture runs.
    paged, next_url = await page(client, "/v2/epcis/events", perPage="3")
    added: list[str] = []
    while next_url:
        batch = [object_event(eventID=f"urn:uuid:{uuid.uuid4()}") for _ in range(4)]
        captured, (more, next_url) = await asyncio.gather(
            capture(client, document(*batch)), page(client, next_url)
        )
        assert captured.status == 201, await captured.text()
        added += [e["eventID"] for e in batch]
        paged.extend(more)
        # The capture has landed: a new query sees it before the next page is asked for.
        now, _ = await page(client, "/v2/epcis/events", perPage="100")
        assert set(added) <= set(now)
    assert len(added) == 6 * 4  # 20 events at 3 a page: 6 pages after the first
    assert paged == before
    assert not set(added) & set(paged)
    everything = await all_pages(client, "/v2/epcis/events", perPage="50")
    assert sorted(everything) == sorted(before + added)
