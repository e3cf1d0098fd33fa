"""Which stretches of the log change what callers may do."""

from collections.abc import Awaitable, Callable

from application.service.runtime import Tracepoint
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


async def _capture_one(client: Client) -> None:
    response = await client.post("/v2/epcis/capture", json=document(object_event()), headers=AUTH)
    assert response.status == 201


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
    assert not await _changes(tracepoint, lambda: _capture_one(client))


async def test_more_record_changes_than_worth_reading_count_as_a_change(
    client: Client, tracepoint: Tracepoint
) -> None:
    products = [{"gtin": "09506000134352"}, {"gtin": "09506000134369"}, {"gtin": "09506000134376"}]
    assert await _changes(
        tracepoint, lambda: ok(client, "POST", "/items/product", products), most=2
    )


async def _applied(tracepoint: Tracepoint, write: Callable[[], Awaitable[object]]) -> bool | None:
    """What the runner's listener knows of the stretch `write` stored (None: nothing)."""
    changes = AccessChanges(tracepoint.store)
    tracepoint.projections.add_listener(changes.applied)
    before = tracepoint.projections.reached
    await write()
    return changes.known(before, tracepoint.projections.reached)


async def test_what_the_runner_applied_is_known_to_change_access(
    client: Client, tracepoint: Tracepoint
) -> None:
    assert await _applied(tracepoint, lambda: user_with(client)) is True


async def test_a_capture_the_runner_applied_is_known_to_change_nothing(
    client: Client, tracepoint: Tracepoint
) -> None:
    assert await _applied(tracepoint, lambda: _capture_one(client)) is False


def test_a_stretch_the_runner_did_not_show_is_not_known(tracepoint: Tracepoint) -> None:
    changes = AccessChanges(tracepoint.store)
    changes.applied([], 10, 20)
    assert changes.known(5, 20) is None
    assert changes.known(10, 25) is None
    assert changes.known(12, 20) is False
