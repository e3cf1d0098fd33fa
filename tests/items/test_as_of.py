"""`GET /items/<collection>/<pk>?as_of=...`: a record as it was at a past moment."""

import asyncio
from datetime import UTC, datetime

from tests.access.helpers import Client, call, ok, user_with


def now() -> str:
    return datetime.now(UTC).isoformat()


async def tick() -> None:
    # Record times have millisecond precision.
    await asyncio.sleep(0.01)


async def test_a_record_reads_as_it_was_between_two_updates(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "Old name"})
    await tick()
    between = now()
    await tick()
    await ok(client, "PATCH", f"/items/product/{product['id']}", {"product_name": "New name"})
    past = await ok(client, "GET", f"/items/product/{product['id']}", params={"as_of": between})
    assert past["product_name"] == "Old name"
    assert past["id"] == product["id"]
    present = await ok(client, "GET", f"/items/product/{product['id']}", params={"as_of": now()})
    assert present["product_name"] == "New name"


async def test_a_record_that_did_not_exist_yet_is_forbidden(client: Client) -> None:
    before = now()
    await tick()
    product = await ok(client, "POST", "/items/product", {"product_name": "Late"})
    status, _ = await call(
        client, "GET", f"/items/product/{product['id']}", params={"as_of": before}
    )
    assert status == 403


async def test_a_deleted_record_still_reads_as_it_was_before_its_deletion(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "Gone"})
    await tick()
    alive = now()
    await tick()
    await ok(client, "DELETE", f"/items/product/{product['id']}")
    past = await ok(client, "GET", f"/items/product/{product['id']}", params={"as_of": alive})
    assert past["product_name"] == "Gone"
    status, _ = await call(
        client, "GET", f"/items/product/{product['id']}", params={"as_of": now()}
    )
    assert status == 403


async def test_as_of_answers_the_fields_asked_for(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "A", "color": "red"})
    past = await ok(
        client,
        "GET",
        f"/items/product/{product['id']}",
        params={"as_of": now(), "fields": "color"},
    )
    assert past == {"color": "red"}


async def test_a_malformed_as_of_is_a_bad_request(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "A"})
    status, _ = await call(
        client, "GET", f"/items/product/{product['id']}", params={"as_of": "last week"}
    )
    assert status == 400


async def test_as_of_keeps_the_callers_item_rule(client: Client) -> None:
    user = await user_with(
        client,
        {
            "collection": "product",
            "action": "read",
            "permissions": {"color": {"_eq": "blue"}},
            "fields": ["*"],
        },
    )
    product = await ok(client, "POST", "/items/product", {"color": "red"})
    await tick()
    status, _ = await call(
        client,
        "GET",
        f"/items/product/{product['id']}",
        params={"as_of": now()},
        token=user.token,
    )
    assert status == 403
