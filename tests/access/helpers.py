"""Calling the platform API in tests: as the bootstrap admin, or as users made for a test."""

import secrets
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp.test_utils import TestClient

from tests.conftest import AUTH

Client = TestClient[Any, Any]


async def call(
    client: Client,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """Send a request (as the admin unless a token is given); the status and JSON body."""
    sent = dict(AUTH) if token is None else {"Authorization": f"Bearer {token}"}
    if token == "":
        sent = {}
    sent.update(headers or {})
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else orjson.dumps(body)
        sent["Content-Type"] = "application/json"
    response = await client.request(method, path, data=data, headers=sent, params=params)
    raw = await response.read()
    return response.status, (orjson.loads(raw) if raw else None)


async def ok(client: Client, method: str, path: str, body: Any = None, **kw: Any) -> Any:
    """The `data` of a request that must succeed."""
    status, payload = await call(client, method, path, body, **kw)
    assert status in (200, 204), (status, payload)
    return payload["data"] if payload else None


def code(payload: Any) -> str:
    """The error code of an error envelope."""
    return str(payload["errors"][0]["extensions"]["code"])


@dataclass(frozen=True)
class MadeUser:
    """A user made for a test, with a static token and a password."""

    id: str
    email: str
    password: str
    token: str
    policy: str


async def user_with(client: Client, *permissions: dict[str, Any], **policy: Any) -> MadeUser:
    """A new active user holding one new policy with these permission rows."""
    policy_id = (
        await ok(client, "POST", "/policies", {"name": "p-" + secrets.token_hex(3), **policy})
    )["id"]
    if permissions:
        await ok(client, "POST", "/permissions", [{**p, "policy": policy_id} for p in permissions])
    email = f"user-{secrets.token_hex(4)}@example.com"
    password, token = "pw-" + secrets.token_hex(6), "tok-" + secrets.token_hex(12)
    user = await ok(
        client,
        "POST",
        "/users",
        {"email": email, "password": password, "token": token, "policies": [{"policy": policy_id}]},
    )
    return MadeUser(user["id"], email, password, token, policy_id)
