"""What a caller may do is kept in memory by each process, and a change to users, roles,
policies or permissions is honoured at once by the process that made it and, within a
poll of the log, by every other process on the same database."""

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from projections.access.reader import AccessReader
from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event

FOLDERS_READ = {"collection": "folders", "action": "read", "fields": ["*"]}
EVENTS_READ = {"collection": "epcis_event", "action": "read"}


@pytest.fixture
async def other(
    tracepoint: Tracepoint, settings: Settings, aiohttp_client: Any
) -> AsyncIterator[Client]:
    """A second service on the same database, as another process behind a load balancer."""
    service = Tracepoint(settings)
    await service.start()
    try:
        yield await aiohttp_client(create_app(service, manage_lifecycle=False))
    finally:
        await service.stop()


def _counting(method: Callable[..., Any], reads: list[str]) -> Callable[..., Any]:
    def counted(self: AccessReader, *args: Any) -> Any:
        reads.append(method.__name__)
        return method(self, *args)

    return counted


async def _within(seconds: float, condition: Callable[[], Awaitable[bool]]) -> float:
    """Seconds until `condition` holds; fails the test after `seconds`."""
    start = time.monotonic()
    while not await condition():
        assert time.monotonic() - start < seconds, "the change was not honoured in time"
        await asyncio.sleep(0.01)
    return time.monotonic() - start


async def _status(client: Client, path: str, token: str) -> int:
    status, _ = await call(client, "GET", path, token=token)
    return status


async def test_a_known_caller_is_resolved_without_reading_the_access_tables(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await user_with(client, FOLDERS_READ)
    await ok(client, "GET", "/folders", token=user.token)
    reads: list[str] = []
    for name in ("user", "user_by_token_hash", "grants"):
        monkeypatch.setattr(AccessReader, name, _counting(getattr(AccessReader, name), reads))
    await ok(client, "GET", "/folders", token=user.token)
    assert reads == []


async def test_a_permission_granted_is_honoured_on_the_next_request(client: Client) -> None:
    user = await user_with(client)
    assert await _status(client, "/folders", user.token) == 403
    await ok(client, "POST", "/permissions", {**FOLDERS_READ, "policy": user.policy})
    assert await _status(client, "/folders", user.token) == 200


async def test_a_permission_removed_is_refused_on_the_next_request(client: Client) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    rows = await ok(client, "GET", "/permissions", params={"filter[policy][_eq]": user.policy})
    await ok(client, "DELETE", f"/permissions/{rows[0]['id']}")
    assert await _status(client, "/folders", user.token) == 403


async def test_a_policy_detached_from_a_user_no_longer_applies_to_their_access_token(
    client: Client,
) -> None:
    user = await user_with(client, FOLDERS_READ)
    login = await ok(
        client, "POST", "/auth/login", {"email": user.email, "password": user.password}
    )
    jwt = login["access_token"]
    assert await _status(client, "/folders", jwt) == 200
    record = await ok(client, "GET", f"/users/{user.id}", params={"fields": "policies.id"})
    detached = {"policies": {"delete": [record["policies"][0]["id"]]}}
    await ok(client, "PATCH", f"/users/{user.id}", detached)
    assert await _status(client, "/folders", jwt) == 403


async def test_a_read_rule_removed_from_events_is_refused_by_the_epcis_api_at_once(
    client: Client,
) -> None:
    user = await user_with(client, EVENTS_READ)
    assert await _status(client, "/v2/epcis/events", user.token) == 200
    rows = await ok(client, "GET", "/permissions", params={"filter[policy][_eq]": user.policy})
    await ok(client, "DELETE", f"/permissions/{rows[0]['id']}")
    assert await _status(client, "/v2/epcis/events", user.token) == 403


async def test_a_suspended_user_is_refused_on_the_next_request(client: Client) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    await ok(client, "PATCH", f"/users/{user.id}", {"status": "suspended"})
    status, body = await call(client, "GET", "/folders", token=user.token)
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")


async def test_a_suspended_user_is_refused_by_the_epcis_api_on_the_next_request(
    client: Client,
) -> None:
    user = await user_with(client, EVENTS_READ)
    assert await _status(client, "/v2/epcis/events", user.token) == 200
    await ok(client, "PATCH", f"/users/{user.id}", {"status": "suspended"})
    assert await _status(client, "/v2/epcis/events", user.token) == 401


async def test_a_deleted_static_token_is_refused(client: Client) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    await ok(client, "PATCH", f"/users/{user.id}", {"token": None})
    status, body = await call(client, "GET", "/folders", token=user.token)
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")


async def test_a_replaced_static_token_is_refused_and_the_new_one_accepted(
    client: Client,
) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    await ok(client, "PATCH", f"/users/{user.id}", {"token": user.token + "-new"})
    assert await _status(client, "/folders", user.token) == 401
    assert await _status(client, "/folders", user.token + "-new") == 200


async def test_a_deleted_user_is_refused(client: Client) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    await ok(client, "DELETE", f"/users/{user.id}")
    assert await _status(client, "/folders", user.token) == 401


async def test_what_one_user_may_do_is_never_answered_for_another(client: Client) -> None:
    reader = await user_with(client, FOLDERS_READ, EVENTS_READ)
    stranger = await user_with(client)
    for _ in range(3):
        assert await _status(client, "/folders", reader.token) == 200
        assert await _status(client, "/folders", stranger.token) == 403
        assert await _status(client, "/v2/epcis/events", reader.token) == 200
        assert await _status(client, "/v2/epcis/events", stranger.token) == 403
        assert await _status(client, "/folders", "") == 403
    assert (await ok(client, "GET", "/users/me", token=reader.token))["id"] == reader.id
    assert (await ok(client, "GET", "/users/me", token=stranger.token))["id"] == stranger.id


async def test_a_role_given_to_a_user_brings_its_policies_at_once(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "folder readers"})
    await ok(client, "POST", "/permissions", {**FOLDERS_READ, "policy": policy["id"]})
    role = await ok(client, "POST", "/roles", {"name": "r", "policies": [{"policy": policy["id"]}]})
    user = await user_with(client)
    assert await _status(client, "/folders", user.token) == 403
    await ok(client, "PATCH", f"/users/{user.id}", {"role": role["id"]})
    assert await _status(client, "/folders", user.token) == 200


async def test_a_permission_granted_through_another_process_is_honoured_within_a_poll(
    client: Client, other: Client
) -> None:
    user = await user_with(client)
    assert await _status(client, "/folders", user.token) == 403
    await ok(other, "POST", "/permissions", {**FOLDERS_READ, "policy": user.policy})
    # The test services poll the log every 0.05 s; a loaded machine may take longer.
    await _within(5.0, lambda: _allowed(client, user.token))


async def test_a_user_suspended_through_another_process_is_refused_within_a_poll(
    client: Client, other: Client
) -> None:
    user = await user_with(client, EVENTS_READ)
    assert await _status(client, "/v2/epcis/events", user.token) == 200
    await ok(other, "PATCH", f"/users/{user.id}", {"status": "suspended"})

    async def refused() -> bool:
        return await _status(client, "/v2/epcis/events", user.token) == 401

    await _within(5.0, refused)


async def test_a_token_deleted_through_another_process_is_refused_within_a_poll(
    client: Client, other: Client
) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    await ok(other, "PATCH", f"/users/{user.id}", {"token": None})

    async def refused() -> bool:
        return await _status(client, "/folders", user.token) == 401

    await _within(5.0, refused)


async def test_a_change_after_captures_is_still_honoured_at_once(client: Client) -> None:
    user = await user_with(client, FOLDERS_READ)
    assert await _status(client, "/folders", user.token) == 200
    response = await client.post("/v2/epcis/capture", json=document(object_event()), headers=AUTH)
    assert response.status in (201, 202)
    assert await _status(client, "/folders", user.token) == 200
    rows = await ok(client, "GET", "/permissions", params={"filter[policy][_eq]": user.policy})
    await ok(client, "DELETE", f"/permissions/{rows[0]['id']}")
    assert await _status(client, "/folders", user.token) == 403


async def _allowed(client: Client, token: str) -> bool:
    return await _status(client, "/folders", token) == 200
