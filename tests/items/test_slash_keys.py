"""Keys holding `/` (`/01/<gtin>`, `/414/<gln>`) on the single-item routes: the rest of
the path is the key, sent as is (as the Directus SDKs send it) or percent-encoded."""

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import quote

import pytest

from tests.access.helpers import Client, call, code, ok, user_with
from tests.flows.test_publish_lot import a_lot

GTIN = "09506000134352"
PRODUCT = f"/01/{GTIN}"


def as_is(key: str) -> str:
    return key


def encoded(key: str) -> str:
    return quote(key, safe="")


SPELLINGS = pytest.mark.parametrize("spell", [as_is, encoded], ids=["as-is", "encoded"])
Spelling = Callable[[str], str]


@SPELLINGS
async def test_a_slash_key_is_read_updated_and_deleted_at_its_path(
    client: Client, spell: Spelling
) -> None:
    await ok(client, "POST", "/items/product", {"gtin": GTIN})
    path = f"/items/product/{spell(PRODUCT)}"
    assert (await ok(client, "GET", path))["gtin"] == GTIN
    updated = await ok(client, "PATCH", path, {"product_name": "Cheese"})
    assert updated["product_name"] == "Cheese"
    status, _ = await call(client, "DELETE", path)
    assert status == 204
    status, body = await call(client, "GET", path)
    assert (status, code(body)) == (403, "FORBIDDEN")


@SPELLINGS
async def test_a_location_key_with_an_extension_is_found(client: Client, spell: Spelling) -> None:
    location = await ok(
        client,
        "POST",
        "/items/location",
        {"gln": "9506000134369", "gln_extension": "dock/2", "use_gs1_identifiers": True},
    )
    assert location["id"].startswith("/414/9506000134369/254/")
    read = await ok(client, "GET", f"/items/location/{spell(location['id'])}")
    assert read["id"] == location["id"]


@SPELLINGS
async def test_a_missing_slash_key_is_forbidden_as_any_missing_key(
    client: Client, spell: Spelling
) -> None:
    status, body = await call(client, "GET", f"/items/product/{spell('/01/09506000134369')}")
    assert (status, code(body)) == (403, "FORBIDDEN")


@SPELLINGS
async def test_a_slash_key_is_read_as_of_a_past_moment(client: Client, spell: Spelling) -> None:
    await ok(client, "POST", "/items/product", {"gtin": GTIN, "product_name": "Old"})
    moment = datetime.now(UTC).isoformat()
    # Changes are timed to the millisecond: the change comes in a later one than the moment.
    await asyncio.sleep(0.002)
    await ok(client, "PATCH", f"/items/product/{spell(PRODUCT)}", {"product_name": "New"})
    past = await ok(client, "GET", f"/items/product/{spell(PRODUCT)}", params={"as_of": moment})
    assert past["product_name"] == "Old"


@SPELLINGS
async def test_a_lot_with_a_slash_key_is_published(client: Client, spell: Spelling) -> None:
    lot = await a_lot(client)
    assert "/" in lot["id"]
    published = await ok(client, "POST", f"/items/lot/{spell(lot['id'])}/publish")
    assert published["lot"] == lot["id"]


@SPELLINGS
async def test_item_permissions_of_a_slash_key(client: Client, spell: Spelling) -> None:
    await ok(client, "POST", "/items/product", {"gtin": GTIN})
    user = await user_with(
        client,
        {"collection": "product", "action": "read", "fields": ["*"]},
        {"collection": "product", "action": "update", "fields": ["*"]},
    )
    found = await ok(client, "GET", f"/permissions/me/product/{spell(PRODUCT)}", token=user.token)
    missing = await ok(
        client, "GET", f"/permissions/me/product/{spell('/01/09506000134369')}", token=user.token
    )
    assert found["update"] == {"access": True}
    assert found["delete"] == {"access": False}
    assert missing["update"] == {"access": False}
