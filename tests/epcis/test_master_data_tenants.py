"""In a multi-tenant installation a master-data query answers only the master data of the
caller's account: what its users captured and its own locations, organisations, products."""

import uuid
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, ok
from tests.conftest import NEVER_TRANSLATES
from tests.epcis.documents import document, object_event
from tests.epcis.streams import as_captured_for, listening_stream, next_streamed
from tests.epcis.test_master_data import SITE, SITE_ELEMENT, with_master_data
from tests.items.test_tenants import Tenants, settings, tenants  # noqa: F401 (fixtures)

QUERY = {"queryType": "SimpleMasterDataQuery", "includeAttributes": True, "includeChildren": True}


async def element_ids(client: Client, token: str) -> list[str]:
    # Names are unique across accounts: each tenant picks its own.
    name = f"all-{uuid.uuid4().hex}"
    body = {"name": name, "query": QUERY}
    assert (await call(client, "POST", "/v2/epcis/queries", body, token=token))[0] == 201
    status, body = await call(client, "GET", f"/v2/epcis/queries/{name}/events", token=token)
    assert status == 200, body
    vocabularies: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"][
        "vocabularyList"
    ]
    return sorted(e["id"] for v in vocabularies for e in v["vocabularyElementList"])


async def test_a_tenant_reads_only_its_own_accounts_master_data(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    captured = with_master_data(document(), SITE_ELEMENT)
    status, body = await call(client, "POST", "/v2/epcis/capture", captured, token=tenants.a.token)
    assert status == 201, body
    location = {"location_name": "Plant", "gln": "9506000134352"}
    await ok(client, "POST", "/items/location", location, token=tenants.a.token)
    # The location answers as a BusinessLocation and as a ReadPoint.
    assert await element_ids(client, tenants.a.token) == [
        "https://id.gs1.org/414/9506000134352",
        "https://id.gs1.org/414/9506000134352",
        SITE,
    ]
    assert await element_ids(client, tenants.b.token) == []


async def test_a_tenants_capture_never_replaces_another_tenants_master_data(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    theirs = with_master_data(document(), {"id": SITE, "children": []})
    for token, doc in (
        (tenants.a.token, with_master_data(document(), SITE_ELEMENT)),
        (tenants.b.token, theirs),
    ):
        status, body = await call(client, "POST", "/v2/epcis/capture", doc, token=token)
        assert status == 201, body
    assert await element_ids(client, tenants.a.token) == [SITE]
    assert await element_ids(client, tenants.b.token) == [SITE]
    name = f"children-{uuid.uuid4().hex}"
    query = {**QUERY, "EQ_name": [SITE]}
    await call(
        client, "POST", "/v2/epcis/queries", {"name": name, "query": query}, token=tenants.a.token
    )
    status, body = await call(
        client, "GET", f"/v2/epcis/queries/{name}/events", token=tenants.a.token
    )
    [vocabulary] = body["epcisBody"]["queryResults"]["resultsBody"]["vocabularyList"]
    assert vocabulary["vocabularyElementList"][0]["children"] == SITE_ELEMENT["children"]


async def test_a_tenants_events_are_not_found_through_another_tenants_master_data(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    status, _ = await call(
        client,
        "POST",
        "/v2/epcis/capture",
        with_master_data(document(), SITE_ELEMENT),
        token=tenants.a.token,
    )
    assert status == 201
    room = SITE_ELEMENT["children"][0]
    theirs = document(
        object_event(bizLocation={"id": room}), object_event(bizLocation={"id": SITE})
    )
    assert (await call(client, "POST", "/v2/epcis/capture", theirs, token=tenants.b.token))[
        0
    ] == 201
    for params in ({"WD_bizLocation": SITE}, {"HASATTR_bizLocation": "cbvmda:sst"}):
        status, body = await call(
            client,
            "GET",
            "/v2/epcis/events",
            params=params,
            token=tenants.b.token,
            headers=NEVER_TRANSLATES,
        )
        assert status == 200, body
        found = [
            e["bizLocation"]["id"]
            for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        ]
        assert found == ([SITE] if "WD_bizLocation" in params else []), params


async def test_a_tenants_stream_reads_only_its_own_accounts_master_data(
    tracepoint: Tracepoint,
    client: Client,
    tenants: Tenants,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hierarchy = with_master_data(document(), SITE_ELEMENT)
    assert (await call(client, "POST", "/v2/epcis/capture", hierarchy, token=tenants.a.token))[
        0
    ] == 201
    name = f"site-{uuid.uuid4().hex}"
    body = {"name": name, "query": {"WD_bizLocation": [SITE]}}
    assert (await call(client, "POST", "/v2/epcis/queries", body, token=tenants.b.token))[0] == 201
    async with listening_stream(
        tracepoint, client, monkeypatch, name, as_captured_for(tenants.b.token)
    ) as socket:
        for place in (SITE_ELEMENT["children"][0], SITE):
            doc = document(object_event(bizLocation={"id": place}))
            status, _ = await call(client, "POST", "/v2/epcis/capture", doc, token=tenants.b.token)
            assert status == 201
        # The room below the site is below it only in the other account's master data.
        assert [e["bizLocation"]["id"] for e in await next_streamed(socket)] == [SITE]
