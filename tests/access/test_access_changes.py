"""Which stretches of the log change what callers may do."""

from collections.abc import Awaitable, Callable

from application.runtime import Tracepoint
from projections.access.changes import AccessChanges
from tests.access.helpers import Client, ok, user_with
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event


async def _changes(
    tracepoint: Tracepoint, write: Callable[[], Awaitable[object]], most: int = 100
) -> bool:
    before = tracepoint.store.max_position()
    await write()
    after = tracepoint.store.max_position()
    assert after > before
    return AccessChanges(tracepoint.store, most).between(before, after)


async def test_a_new_permission_changes_access(client: Client, tracepoint: Tracepoint) -> None:
    user = await user_with(client)
    permission = {"collection": "folders", "action": "read", "policy": user.policy}
    assert await _changes(tracepoint, lambda: ok(client, "POST", "/permissions", permission))


async def test_a_new_user_changes_access(client: Client, tracepoint: Tracepoint) -> None:
    assert await _changes(tracepoint, lambda: user_with(client))


async def test_a_role_renamed_changes_access(client: Client, tracepoint: Tracepoint) -> None:
    role = await ok(client, "POST", "/roles", {"name": "r"})
    rename = {"name": "renamed"}
    assert await _changes(tracepoint, lambda: ok(client, "PATCH", f"/roles/{role['id']}", rename))


async def test_a_sign_in_does_not(client: Client, tracepoint: Tracepoint) -> None:
    user = await user_with(client)
    login = {"email": user.email, "password": user.password}
    assert not await _changes(tracepoint, lambda: ok(client, "POST", "/auth/login", login))


async def test_a_product_does_not(client: Client, tracepoint: Tracepoint) -> None:
    product = {"gtin": "09506000134352"}
    assert not await _changes(tracepoint, lambda: ok(client, "POST", "/items/product", product))


async def test_a_capture_does_not(client: Client, tracepoint: Tracepoint) -> None:
    async def captured() -> None:
        response = await client.post(
            "/v2/epcis/capture", json=document(object_event()), headers=AUTH
        )
        assert response.status == 201

    assert not await _changes(tracepoint, captured)


async def test_more_record_changes_than_worth_reading_count_as_a_change(
    client: Client, tracepoint: Tracepoint
) -> None:
    products = [{"gtin": "09506000134352"}, {"gtin": "09506000134369"}, {"gtin": "09506000134376"}]
    assert await _changes(
        tracepoint, lambda: ok(client, "POST", "/items/product", products), most=2
    )
