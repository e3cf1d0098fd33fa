"""`/items/epcis_queries` and the EPCIS named-query endpoints hold the same records."""

from datetime import UTC, datetime
from typing import Any

from application.epcis.named_query_migration import migrate_named_queries
from application.service.runtime import Tracepoint
from domain.epcis.named_query import NamedQuery
from tests.access.helpers import Client, call, code, ok
from tests.conftest import AUTH

SHIPPING = {"EQ_bizStep": ["shipping"]}


async def define(client: Client, name: str, query: Any) -> int:
    response = await client.post(
        "/v2/epcis/queries", json={"name": name, "query": query}, headers=AUTH
    )
    return response.status


async def test_a_query_defined_through_epcis_is_an_item(client: Client) -> None:
    assert await define(client, "shipped", SHIPPING) == 201
    item = await ok(client, "GET", "/items/epcis_queries/shipped")
    assert item["query"] == SHIPPING
    assert item["user_created"] is not None
    assert item["date_created"] is not None


async def test_a_query_created_as_an_item_runs_through_epcis(client: Client) -> None:
    await ok(client, "POST", "/items/epcis_queries", {"name": "shipped", "query": SHIPPING})
    response = await client.get("/v2/epcis/queries/shipped", headers=AUTH)
    assert response.status == 200
    assert (await response.json())["query"] == SHIPPING
    events = await client.get("/v2/epcis/queries/shipped/events", headers=AUTH)
    assert events.status == 200


async def test_an_item_with_a_query_epcis_cannot_run_is_refused(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/epcis_queries", {"name": "bad", "query": {"EQ_colour": ["red"]}}
    )
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"
    assert "EQ_colour" in body["errors"][0]["message"]


async def test_an_item_name_must_fit_a_path_segment(client: Client) -> None:
    status, _ = await call(
        client, "POST", "/items/epcis_queries", {"name": "a/b", "query": SHIPPING}
    )
    assert status == 400


async def test_a_name_taken_by_an_item_is_taken_for_epcis(client: Client) -> None:
    await ok(client, "POST", "/items/epcis_queries", {"name": "shipped", "query": SHIPPING})
    assert await define(client, "shipped", SHIPPING) == 409


async def test_an_item_update_changes_what_the_query_selects(client: Client) -> None:
    await ok(client, "POST", "/items/epcis_queries", {"name": "q", "query": SHIPPING})
    await ok(client, "PATCH", "/items/epcis_queries/q", {"query": {"EQ_bizStep": ["receiving"]}})
    response = await client.get("/v2/epcis/queries/q", headers=AUTH)
    assert (await response.json())["query"] == {"EQ_bizStep": ["receiving"]}


async def test_deleting_the_item_deletes_the_named_query(client: Client) -> None:
    assert await define(client, "shipped", SHIPPING) == 201
    await ok(client, "DELETE", "/items/epcis_queries/shipped")
    response = await client.get("/v2/epcis/queries/shipped", headers=AUTH)
    assert response.status == 404


async def test_named_queries_stored_before_records_become_records(
    tracepoint: Tracepoint, client: Client
) -> None:
    at = datetime.now(UTC).isoformat()
    kept = NamedQuery("kept", SHIPPING, None, at)
    gone = NamedQuery("gone", SHIPPING, None, at)
    gone.delete(None, at)
    tracepoint.store.save(kept, gone)
    with tracepoint.database.transaction() as conn:
        conn.execute("DELETE FROM tracepoint_instance WHERE key = 'named-queries-are-records'")
    assert migrate_named_queries(tracepoint.store, tracepoint.core.instance) == 1
    assert migrate_named_queries(tracepoint.store, tracepoint.core.instance) == 0
    await tracepoint.follower.wait_for(tracepoint.store.max_position(), 5)
    names = [q["name"] for q in await ok(client, "GET", "/items/epcis_queries")]
    assert names == ["kept"]
