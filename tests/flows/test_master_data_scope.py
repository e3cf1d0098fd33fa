"""Outbound flows, webhook subscriptions and WebSockets read master data (WD_readPoint,
WD_bizLocation, HASATTR_, EQ_ATTR_) as their owner's `/events` does: in a multi-tenant
installation, only the owner's accounts' master data, never another tenant's."""

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from domain.gs1 import canonical_epc
from tests.access.helpers import Client, call
from tests.epcis.documents import document, object_event
from tests.epcis.streams import as_captured_for, listening_stream, next_streamed
from tests.epcis.test_master_data import SHELF, SITE, STORE_ROOM
from tests.flows.helpers import flow_to, run
from tests.flows.partner import Partner, running_partner
from tests.items.test_tenants import Tenants, settings, tenants  # noqa: F401 (fixtures)

VOCABULARIES = ("BusinessLocation", "ReadPoint")

#: Tenant B says the site holds the store room and has a sub-site type; tenant A says only
#: that its shelf has one. Each query would also select what B's master data names.
QUERIES = [
    ({"WD_bizLocation": [SITE]}, SITE),
    ({"WD_readPoint": [SITE]}, SITE),
    ({"HASATTR_bizLocation": ["cbvmda:sst"]}, SHELF),
    ({"EQ_ATTR_readPoint_urn:epcglobal:cbv:mda#sst": ["201", "202"]}, SHELF),
]


def master_data(element: dict[str, Any]) -> dict[str, Any]:
    vocabularies = [
        {"type": f"urn:epcglobal:epcis:vtype:{kind}", "vocabularyElementList": [element]}
        for kind in VOCABULARIES
    ]
    return {**document(), "epcisHeader": {"epcisMasterData": {"vocabularyList": vocabularies}}}


async def captured(client: Client, doc: dict[str, Any], token: str) -> None:
    status, body = await call(client, "POST", "/v2/epcis/capture", doc, token=token)
    assert status == 201, body


@pytest.fixture
async def hierarchies(client: Client, tenants: Tenants) -> None:  # noqa: F811
    theirs = {
        "id": SITE,
        "attributes": [{"id": "cbvmda:sst", "attribute": "201"}],
        "children": [STORE_ROOM],
    }
    ours = {"id": SHELF, "attributes": [{"id": "cbvmda:sst", "attribute": "202"}]}
    await captured(client, master_data(theirs), tenants.b.token)
    await captured(client, master_data(ours), tenants.a.token)


async def capture_places(client: Client, token: str, expected: str) -> None:
    """Tenant A's events at the three places, the expected one last."""
    for place in sorted((SITE, STORE_ROOM, SHELF), key=lambda p: p == expected):
        event = object_event(readPoint={"id": place}, bizLocation={"id": place})
        await captured(client, document(event), token)


async def named_query(client: Client, query: dict[str, list[str]], token: str) -> str:
    name = f"md-scope-{uuid.uuid4().hex}"
    body = {"name": name, "query": query}
    status, answer = await call(client, "POST", "/v2/epcis/queries", body, token=token)
    assert status == 201, answer
    return name


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


@pytest.mark.parametrize(("query", "expected"), QUERIES)
async def test_a_flow_reads_only_its_owners_master_data(
    client: Client,
    tenants: Tenants,  # noqa: F811
    hierarchies: None,
    partner: Partner,
    query: dict[str, list[str]],
    expected: str,
) -> None:
    await capture_places(client, tenants.a.token, expected)
    flow = await flow_to(client, partner.url, query, token=tenants.a.token)
    done = await run(client, flow, token=tenants.a.token)
    assert done["outcome"] == "sent", done
    assert [e["bizLocation"]["id"] for e in partner.events] == [expected]


@pytest.mark.parametrize(("query", "expected"), QUERIES)
async def test_a_webhook_subscription_reads_only_its_owners_master_data(
    tracepoint: Tracepoint,
    client: Client,
    tenants: Tenants,  # noqa: F811
    hierarchies: None,
    partner: Partner,
    query: dict[str, list[str]],
    expected: str,
) -> None:
    name = await named_query(client, query, tenants.a.token)
    controls = {"dest": partner.url, "stream": True}
    status, body = await call(
        client, "POST", f"/v2/epcis/queries/{name}/subscriptions", controls, token=tenants.a.token
    )
    assert status == 201, body
    await capture_places(client, tenants.a.token, expected)
    await tracepoint.epcis.subscriptions.deliver_due()
    delivered = [
        e["bizLocation"]["id"]
        for d in partner.documents
        for e in d["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ]
    # Subscribed without GS1-EPC-Format: places are written as Digital Links.
    assert delivered == [canonical_epc(expected)]


@pytest.mark.parametrize(("query", "expected"), QUERIES)
async def test_a_websocket_reads_only_its_owners_master_data(
    tracepoint: Tracepoint,
    client: Client,
    tenants: Tenants,  # noqa: F811
    hierarchies: None,
    monkeypatch: pytest.MonkeyPatch,
    query: dict[str, list[str]],
    expected: str,
) -> None:
    name = await named_query(client, query, tenants.a.token)
    async with listening_stream(
        tracepoint, client, monkeypatch, name, as_captured_for(tenants.a.token)
    ) as socket:
        # The places another tenant's master data would add are captured first: they
        # would be the first document sent.
        await capture_places(client, tenants.a.token, expected)
        streamed = await next_streamed(socket)
    assert [e["bizLocation"]["id"] for e in streamed] == [expected]
