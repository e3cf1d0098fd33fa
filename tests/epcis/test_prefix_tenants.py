"""In a multi-tenant installation each account's captured documents bind prefixes for that
account alone: a tenant's CURIEs, in queries, read rules and discovery, are read by its
own bindings, and another tenant's documents neither give them meaning nor make them
ambiguous."""

import uuid
from pathlib import Path
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, MadeUser, call, ok, user_with
from tests.access.test_permissions import event_ids
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.streams import as_captured_for, listening_stream, next_streamed
from tests.epcis.test_custom_vocabulary import EX, OTHER
from tests.items.test_tenants import Tenants, settings, tenants  # noqa: F401 (fixtures)

RAIL = "urn:example:rail:"


async def capture_as(user: MadeUser, client: Client, bizStep: str, **bound: str) -> str:
    """Capture, as `user`, one event with this bizStep in a document binding `bound`;
    its eventID."""
    event_id = f"urn:uuid:{uuid.uuid4()}"
    context: list[Any] = [CONTEXT, bound] if bound else [CONTEXT]
    doc = document(object_event(eventID=event_id, bizStep=bizStep), context=context)
    status, body = await call(client, "POST", "/v2/epcis/capture", doc, token=user.token)
    assert status == 201, body
    return event_id


async def test_each_tenant_reads_a_curie_by_its_own_accounts_bindings(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    ours = await capture_as(tenants.a, client, "ex:checking", ex=EX)
    theirs = await capture_as(tenants.b, client, "ex:checking", ex=OTHER)
    for user, own in ((tenants.a, ours), (tenants.b, theirs)):
        assert await event_ids(client, user.token, EQ_bizStep="ex:checking") == [own]
    assert await event_ids(client, tenants.a.token, EQ_bizStep=EX + "checking") == [ours]
    assert await event_ids(client, tenants.b.token, EQ_bizStep=OTHER + "checking") == [theirs]


async def test_another_tenants_binding_gives_no_meaning_to_a_tenants_curie(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await capture_as(tenants.a, client, "ex:checking", ex=EX)
    unbound = await capture_as(tenants.b, client, "ex:checking")
    assert await event_ids(client, tenants.b.token, EQ_bizStep="ex:checking") == [unbound]


async def test_discovery_names_only_the_prefixes_of_the_callers_account(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await capture_as(tenants.a, client, "ex:checking", ex=EX)
    await capture_as(tenants.b, client, "rail:loading", rail=RAIL)
    told = {}
    for name, headers in (
        ("a", {"Authorization": f"Bearer {tenants.a.token}"}),
        ("b", {"Authorization": f"Bearer {tenants.b.token}"}),
        ("admin", AUTH),
    ):
        response = await client.options("/v2/epcis/events", headers=headers)
        assert response.status == 204
        told[name] = response.headers.get("GS1-Extensions")
    assert told == {"a": f"ex={EX}", "b": f"rail={RAIL}", "admin": f"ex={EX}, rail={RAIL}"}


async def partner_of(client: Client, account: str, rule: dict[str, Any]) -> MadeUser:
    """A user of `account` who reads the events that `rule` allows."""
    partner = await user_with(
        client, {"collection": "epcis_event", "action": "read", "permissions": rule}
    )
    await ok(client, "PATCH", f"/users/{partner.id}", {"account": account})
    return partner


async def test_a_partners_rule_reads_its_curies_by_the_partners_account(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    a_curie = await capture_as(tenants.a, client, "ex:checking", ex=EX)
    await capture_as(tenants.a, client, OTHER + "checking", ex=EX)
    b_curie = await capture_as(tenants.b, client, "ex:checking", ex=OTHER)
    await capture_as(tenants.b, client, EX + "checking", ex=OTHER)
    rule = {"bizStep": {"_eq": "ex:checking"}}
    for account, seen in ((tenants.account_a, a_curie), (tenants.account_b, b_curie)):
        partner = await partner_of(client, account, rule)
        assert await event_ids(client, partner.token) == [seen]


async def test_a_rule_whose_prefix_one_account_binds_two_ways_is_refused(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await capture_as(tenants.a, client, "ex:checking", ex=EX)
    await capture_as(tenants.a, client, "ex:checking", ex=OTHER)
    policy = await ok(client, "POST", "/policies", {"name": "partner"})
    row = {"policy": policy["id"], "collection": "epcis_event", "action": "read"}
    rule = {"bizStep": {"_eq": "ex:checking"}}
    status, body = await call(client, "POST", "/permissions", {**row, "permissions": rule})
    assert status == 400, body
    assert "bound to more than one namespace" in body["errors"][0]["message"]


async def test_a_tenants_stream_reads_its_named_querys_curies_by_its_own_bindings(
    tracepoint: Tracepoint,
    client: Client,
    tenants: Tenants,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await capture_as(tenants.b, client, "ex:checking", ex=OTHER)
    await capture_as(tenants.a, client, "ex:other", ex=EX)
    name = f"checks-{uuid.uuid4().hex}"
    body = {"name": name, "query": {"EQ_bizStep": ["ex:checking"]}}
    assert (await call(client, "POST", "/v2/epcis/queries", body, token=tenants.a.token))[0] == 201
    async with listening_stream(
        tracepoint, client, monkeypatch, name, as_captured_for(tenants.a.token)
    ) as socket:
        checked = await capture_as(tenants.a, client, "ex:checking", ex=EX)
        assert [e["eventID"] for e in await next_streamed(socket)] == [checked]


class TestRebuiltOneEventPerBatch:
    """A rebuild whose batches split a capture's job from its events."""

    @pytest.fixture
    def settings(self, database_url: str, tmp_path: Path) -> Settings:
        return make_settings(
            database_url,
            multi_tenant=True,
            uploads_dir=str(tmp_path / "uploads"),
            projection_batch_size=1,
        )

    async def test_each_tenant_keeps_its_own_bindings(
        self,
        tracepoint: Tracepoint,
        client: Client,
        tenants: Tenants,  # noqa: F811
    ) -> None:
        ours = await capture_as(tenants.a, client, "ex:checking", ex=EX)
        theirs = await capture_as(tenants.b, client, "ex:checking", ex=OTHER)
        await tracepoint.blocking.run(tracepoint.projections.rebuild)
        assert await event_ids(client, tenants.a.token, EQ_bizStep="ex:checking") == [ours]
        assert await event_ids(client, tenants.b.token, EQ_bizStep="ex:checking") == [theirs]
