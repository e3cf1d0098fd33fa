"""Multi-tenant installations (spec §1 rule 3): users belong to accounts and nobody reads
or writes another account's items; administrators see every account."""

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import FormData

from application.service.runtime import Tracepoint
from domain.collections.schema import Collection
from domain.epcis.capture_job import CaptureJob
from domain.epcis.captured_event import CapturedEvent
from domain.masterdata.catalogue import ITEM_COLLECTIONS
from infrastructure.settings import Settings
from tests.access.helpers import Client, MadeUser, call, ok, user_with
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import document, object_event

#: The least each item collection needs to create an item.
MINIMAL: dict[str, dict[str, Any]] = {
    "identifier_job": {"type": "short_code", "quantity": 10},
    "code_reservation": {"quantity": 10},
    "epcis_queries": {"query": {"EQ_bizStep": ["shipping"]}},
    "epcis_connection": {"name": "partner", "url": "https://partner.example/capture"},
    "brand": {"brand_name": "Oaty"},
}


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """A multi-tenant installation."""
    return make_settings(database_url, multi_tenant=True, uploads_dir=str(tmp_path / "uploads"))


@dataclass(frozen=True)
class Tenants:
    a: MadeUser
    b: MadeUser
    account_a: str
    account_b: str


def everything() -> list[dict[str, Any]]:
    names = [c.name for c in ITEM_COLLECTIONS] + [
        "shipment_notice_line_item",
        "product_translations",
        "users",
        "files",
    ]
    return [
        {"collection": name, "action": action, "fields": ["*"]}
        for name in names
        for action in ("create", "read", "update", "delete")
    ] + [{"collection": "epcis_event", "action": action} for action in ("create", "read")]


async def tenant_user(client: Client, account: str) -> MadeUser:
    user = await user_with(client, *everything())
    await ok(client, "PATCH", f"/users/{user.id}", {"account": account})
    return user


@pytest.fixture
async def tenants(client: Client) -> Tenants:
    account_a = (await ok(client, "POST", "/items/account", {"name": "A"}))["id"]
    account_b = (await ok(client, "POST", "/items/account", {"name": "B"}))["id"]
    return Tenants(
        await tenant_user(client, account_a),
        await tenant_user(client, account_b),
        account_a,
        account_b,
    )


def schema_of(collection: str) -> Collection:
    return next(c for c in ITEM_COLLECTIONS if c.name == collection)


def new_item(collection: str, n: int = 0) -> dict[str, Any]:
    item = dict(MINIMAL.get(collection, {}))
    if collection == "epcis_queries":
        item["name"] = f"q{n}"
    return item


@pytest.mark.parametrize("collection", [c.name for c in ITEM_COLLECTIONS if not c.bulk])
async def test_an_accounts_items_are_invisible_to_another_account(
    client: Client, tenants: Tenants, collection: str
) -> None:
    item = new_item(collection)
    if collection == "epcis_outbound_flow":
        # A flow needs a connection and a named query, of its own account.
        for needed in ("epcis_connection", "epcis_queries"):
            made = await ok(
                client, "POST", f"/items/{needed}", new_item(needed, 9), token=tenants.a.token
            )
            item["connection" if needed == "epcis_connection" else "epcis_query"] = made.get(
                "name" if needed == "epcis_queries" else "id"
            )
    made = await ok(client, "POST", f"/items/{collection}", item, token=tenants.a.token)
    key = made[schema_of(collection).primary_key]
    assert made["account"] == tenants.account_a
    assert await ok(client, "GET", f"/items/{collection}", token=tenants.b.token) == []
    path = f"/items/{collection}/{key}"
    for method, body in (("GET", None), ("PATCH", {}), ("DELETE", None)):
        status, _ = await call(client, method, path, body, token=tenants.b.token)
        assert status == 403, (method, status)
    assert len(await ok(client, "GET", f"/items/{collection}", token=tenants.a.token)) == 1


async def test_codes_belong_to_the_account_of_their_job_and_stay_in_it(
    tracepoint: Tracepoint, client: Client, tenants: Tenants
) -> None:
    job = await ok(
        client, "POST", "/items/identifier_job", new_item("identifier_job"), token=tenants.a.token
    )
    await tracepoint.codes.work.run()
    codes = await ok(client, "GET", "/items/unique_code", token=tenants.a.token)
    assert len(codes) == 10
    assert {c["account"] for c in codes} == {tenants.account_a}
    assert {c["identifier_job"] for c in codes} == {job["id"]}
    assert await ok(client, "GET", "/items/unique_code", token=tenants.b.token) == []
    status, _ = await call(
        client,
        "PATCH",
        f"/items/unique_code/{codes[0]['id']}",
        {"status": "assigned"},
        token=tenants.b.token,
    )
    assert status == 403


async def test_a_scan_of_a_code_belongs_to_the_codes_account(
    tracepoint: Tracepoint, client: Client, tenants: Tenants
) -> None:
    await ok(
        client, "POST", "/items/identifier_job", new_item("identifier_job"), token=tenants.a.token
    )
    await tracepoint.codes.work.run()
    [code, *_] = await ok(client, "GET", "/items/unique_code", token=tenants.a.token)
    response = await client.get("/" + code["code"], allow_redirects=False)
    assert response.status == 200
    [scan] = await ok(client, "GET", "/items/code_scan")
    assert scan["account"] == tenants.account_a


async def test_administrators_see_every_account(client: Client, tenants: Tenants) -> None:
    await ok(client, "POST", "/items/product", {"product_name": "A's"}, token=tenants.a.token)
    await ok(client, "POST", "/items/product", {"product_name": "B's"}, token=tenants.b.token)
    names = {p["product_name"] for p in await ok(client, "GET", "/items/product")}
    assert names == {"A's", "B's"}


async def test_a_user_cannot_choose_the_account_of_an_item(
    client: Client, tenants: Tenants
) -> None:
    status, _ = await call(
        client,
        "POST",
        "/items/product",
        {"product_name": "x", "account": tenants.account_b},
        token=tenants.a.token,
    )
    assert status == 403


async def test_an_administrator_may_place_an_item_in_an_account(
    client: Client, tenants: Tenants
) -> None:
    await ok(client, "POST", "/items/product", {"product_name": "x", "account": tenants.account_b})
    assert len(await ok(client, "GET", "/items/product", token=tenants.b.token)) == 1


async def test_a_relation_cannot_reach_into_another_account(
    client: Client, tenants: Tenants
) -> None:
    theirs = await ok(
        client, "POST", "/items/organisation", {"organisation_name": "B"}, token=tenants.b.token
    )
    status, _ = await call(
        client,
        "POST",
        "/items/product",
        {"product_manufacturer": theirs["id"]},
        token=tenants.a.token,
    )
    assert status == 400


async def test_nested_rows_belong_to_their_items_account(client: Client, tenants: Tenants) -> None:
    notice = await ok(
        client,
        "POST",
        "/items/shipment_notice",
        {"line_items": [{"package_id": "P1"}]},
        token=tenants.a.token,
        params={"fields": "line_items.account"},
    )
    assert notice["line_items"] == [{"account": tenants.account_a}]
    assert await ok(client, "GET", "/items/shipment_notice_line_item", token=tenants.b.token) == []


async def test_users_see_only_their_accounts_users(client: Client, tenants: Tenants) -> None:
    listed = await ok(client, "GET", "/users", token=tenants.a.token, params={"fields": "id"})
    assert [u["id"] for u in listed] == [tenants.a.id]


async def test_a_user_without_an_account_sees_no_tenant_items(
    client: Client, tenants: Tenants
) -> None:
    await ok(client, "POST", "/items/product", {"product_name": "A's"}, token=tenants.a.token)
    loner = await user_with(client, *everything())
    assert await ok(client, "GET", "/items/product", token=loner.token) == []


async def test_search_and_counts_stay_within_the_account(client: Client, tenants: Tenants) -> None:
    await ok(client, "POST", "/items/product", {"product_name": "Oats"}, token=tenants.a.token)
    status, body = await call(
        client,
        "GET",
        "/items/product",
        token=tenants.b.token,
        params={"search": "Oats", "meta": "total_count,filter_count"},
    )
    assert status == 200
    assert body["data"] == []
    assert body["meta"] == {"total_count": 0, "filter_count": 0}


async def test_single_tenant_installations_have_no_accounts(
    database_url: str, aiohttp_client: Any
) -> None:
    from api.service.app import create_app
    from application.service.runtime import Tracepoint

    service = Tracepoint(make_settings(database_url))
    await service.start()
    try:
        single = await aiohttp_client(create_app(service, manage_lifecycle=False))
        status, _ = await call(single, "GET", "/items/account")
        assert status == 403
        product = await ok(single, "POST", "/items/product", {"product_name": "x"})
        assert "account" not in product
    finally:
        await service.stop()


async def captured_ids(client: Client, token: str | None) -> list[str]:
    headers = AUTH if token is None else {"Authorization": f"Bearer {token}"}
    response = await client.get("/v2/epcis/events", headers=headers)
    assert response.status == 200, await response.text()
    body = await response.json()
    return [e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]]


async def capture_as(client: Client, user: MadeUser) -> str:
    event = object_event(eventID=f"urn:uuid:{uuid.uuid4()}")
    response = await client.post(
        "/v2/epcis/capture",
        json=document(event),
        headers={"Authorization": f"Bearer {user.token}"},
    )
    assert response.status == 201, await response.text()
    return str(response.headers["Location"])


async def test_events_are_seen_only_by_the_capturing_account(
    client: Client, tenants: Tenants
) -> None:
    await capture_as(client, tenants.a)
    mine = await captured_ids(client, tenants.a.token)
    assert len(mine) == 1
    assert await captured_ids(client, tenants.b.token) == []
    assert await captured_ids(client, None) == mine


async def test_an_account_lists_only_the_values_of_its_own_events(
    client: Client, tenants: Tenants
) -> None:
    theirs = document(object_event(bizStep="urn:example:secret-step"))
    response = await client.post(
        "/v2/epcis/capture", json=theirs, headers={"Authorization": f"Bearer {tenants.b.token}"}
    )
    assert response.status == 201, await response.text()
    await capture_as(client, tenants.a)
    a = {"Authorization": f"Bearer {tenants.a.token}"}
    steps = await (await client.get("/v2/epcis/bizSteps?perPage=100", headers=a)).json()
    assert "urn:example:secret-step" not in steps["member"]
    epcs = await (await client.get("/v2/epcis/epcs", headers=a)).json()
    assert len(epcs["member"]) == 1
    hidden = await client.get("/v2/epcis/bizSteps/urn:example:secret-step", headers=a)
    assert hidden.status == 404


async def test_accounts_sharing_an_event_id_hold_two_events_each_seeing_its_own(
    client: Client, tenants: Tenants
) -> None:
    event_id = f"urn:uuid:{uuid.uuid4()}"
    a = {"Authorization": f"Bearer {tenants.a.token}"}
    b = {"Authorization": f"Bearer {tenants.b.token}"}
    first = await client.post(
        "/v2/epcis/capture", json=document(object_event(eventID=event_id)), headers=a
    )
    assert first.status == 201
    # B neither collides with A's event nor learns that it exists.
    theirs = document(object_event(eventID=event_id, bizStep="urn:example:step"))
    second = await client.post("/v2/epcis/capture", json=theirs, headers=b)
    assert second.status == 201, await second.text()
    assert "1 new event(s); 0 already present" in (await second.json())["message"]
    for headers, step in ((a, "shipping"), (b, "urn:example:step")):
        response = await client.get(f"/v2/epcis/events/{event_id}", headers=headers)
        body = await response.json()
        found = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        assert [(e["eventID"], e["bizStep"]) for e in found] == [(event_id, step)]


async def stored_as_before(
    tracepoint: Tracepoint, tenants: Tenants, name: str, event: dict[str, Any]
) -> None:
    """`event` stored as a multi-tenant installation of an earlier version stored A's
    capture: named `name`, under an installation-wide identity."""
    capture_id = str(uuid.uuid4())
    recorded = CapturedEvent.captured(name, event, {}, "2024-03-01T10:00:00.000Z", capture_id)
    job = CaptureJob(
        capture_id=capture_id,
        error_behaviour="rollback",
        created_at="2024-03-01T10:00:00.000Z",
        finished_at="2024-03-01T10:00:00.000Z",
        events_received=1,
        events_stored=1,
        events_already_present=0,
        events_rejected=0,
        errors=[],
        captured_by=tenants.a.id,
        account=tenants.account_a,
    )
    tracepoint.store.save(job, recorded)
    await tracepoint.blocking.run(tracepoint.projections.catch_up)


async def test_an_event_captured_before_identity_was_per_account_keeps_its_identity(
    client: Client, tenants: Tenants, tracepoint: Tracepoint
) -> None:
    # As a multi-tenant installation of an earlier version stored A's capture.
    event = object_event(eventID=f"urn:uuid:{uuid.uuid4()}")
    await stored_as_before(tracepoint, tenants, event["eventID"], event)
    for user, said in ((tenants.a, "0 new event(s); 1 already present"), (tenants.b, "1 new")):
        response = await client.post(
            "/v2/epcis/capture",
            json=document(event),
            headers={"Authorization": f"Bearer {user.token}"},
        )
        assert said in (await response.json())["message"]


async def test_a_capture_job_is_seen_only_by_its_account(client: Client, tenants: Tenants) -> None:
    location = await capture_as(client, tenants.a)
    theirs = await client.get(location, headers={"Authorization": f"Bearer {tenants.b.token}"})
    assert theirs.status == 404
    own = await client.get(location, headers={"Authorization": f"Bearer {tenants.a.token}"})
    assert own.status == 200
    listed = await client.get(
        "/v2/epcis/capture", headers={"Authorization": f"Bearer {tenants.b.token}"}
    )
    assert await listed.json() == []


async def test_a_named_query_is_seen_only_by_its_account(client: Client, tenants: Tenants) -> None:
    defined = await client.post(
        "/v2/epcis/queries",
        json={"name": "mine", "query": {"EQ_bizStep": ["shipping"]}},
        headers={"Authorization": f"Bearer {tenants.a.token}"},
    )
    assert defined.status == 201
    b = {"Authorization": f"Bearer {tenants.b.token}"}
    assert (await client.get("/v2/epcis/queries/mine", headers=b)).status == 404
    assert (await client.get("/v2/epcis/queries/mine/events", headers=b)).status == 404
    assert await (await client.get("/v2/epcis/queries", headers=b)).json() == []
    a = {"Authorization": f"Bearer {tenants.a.token}"}
    assert (await client.get("/v2/epcis/queries/mine/events", headers=a)).status == 200


async def test_files_are_seen_only_by_their_account(
    client: Client, tenants: Tenants, tmp_path: Path
) -> None:
    data = FormData()
    data.add_field("file", b"%PDF-1.4 tenant", filename="a.pdf", content_type="application/pdf")
    response = await client.post(
        "/files", data=data, headers={"Authorization": f"Bearer {tenants.a.token}"}
    )
    assert response.status == 200, await response.text()
    made = (await response.json())["data"]
    assert made["account"] == tenants.account_a
    assert await ok(client, "GET", "/files", token=tenants.b.token) == []
    b = {"Authorization": f"Bearer {tenants.b.token}"}
    assert (await client.get(f"/assets/{made['id']}", headers=b)).status == 403
    a = {"Authorization": f"Bearer {tenants.a.token}"}
    assert (await client.get(f"/assets/{made['id']}", headers=a)).status == 200


async def test_every_account_reads_and_links_the_same_reference_lists(
    client: Client, tenants: Tenants
) -> None:
    for user in (tenants.a, tenants.b):
        made = await ok(client, "POST", "/items/location", {"country_code": "FR"}, token=user.token)
        assert made["country_code"] == "FR"
    reader = await user_with(
        client,
        {"collection": "location", "action": "read", "fields": ["*"]},
        {"collection": "ref_country", "action": "read", "fields": ["*"]},
    )
    await ok(client, "PATCH", f"/users/{reader.id}", {"account": tenants.account_b})
    read = await ok(
        client, "GET", "/items/location", params={"fields": "country_code.name"}, token=reader.token
    )
    assert read == [{"country_code": {"name": "France"}}]
