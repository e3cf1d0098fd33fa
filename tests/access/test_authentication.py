"""Signing in, refreshing, signing out, and the tokens the API accepts."""

import asyncio
import time
from typing import Any

import jwt
import pytest
from argon2 import PasswordHasher

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.access_tokens import signing_key
from infrastructure.settings import Settings
from projections.access.reader import AccessReader
from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import make_settings

ADMIN = {"email": "admin@example.com", "password": "correct horse battery staple"}


async def login(client: Client, **body: Any) -> tuple[int, Any, Any]:
    response = await client.post("/auth/login", json={**ADMIN, **body})
    raw = await response.json()
    return response.status, raw, response


async def test_json_login_answers_both_tokens_and_the_lifetime_in_ms(client: Client) -> None:
    status, body, _ = await login(client)
    assert status == 200
    assert set(body["data"]) == {"access_token", "refresh_token", "expires"}
    assert body["data"]["expires"] == 900_000


async def test_an_access_token_authenticates_platform_requests(client: Client) -> None:
    _, body, _ = await login(client)
    me = await ok(client, "GET", "/users/me", token=body["data"]["access_token"])
    assert me["email"] == ADMIN["email"]


async def test_the_access_token_may_come_as_a_query_parameter(client: Client) -> None:
    _, body, _ = await login(client)
    response = await client.get("/users/me", params={"access_token": body["data"]["access_token"]})
    assert response.status == 200
    assert (await response.json())["data"]["email"] == ADMIN["email"]
    # Without the parameter the same request has no user.
    status, payload = await call(client, "GET", "/users/me", token="")
    assert (status, code(payload)) == (401, "INVALID_CREDENTIALS")


async def test_a_token_in_both_header_and_query_is_refused(client: Client) -> None:
    _, body, _ = await login(client)
    token = body["data"]["access_token"]
    status, payload = await call(
        client, "GET", "/users/me", token=token, params={"access_token": token}
    )
    assert status == 400
    assert code(payload) == "INVALID_PAYLOAD"


async def test_a_wrong_password_and_an_unknown_e_mail_answer_alike(client: Client) -> None:
    wrong = await login(client, password="nope")
    unknown = await login(client, email="nobody@example.com")
    for status, body, _ in (wrong, unknown):
        assert status == 401
        assert body["errors"][0] == {
            "message": "Invalid user credentials.",
            "extensions": {"code": "INVALID_CREDENTIALS"},
        }


async def test_login_without_a_password_is_invalid_payload(client: Client) -> None:
    response = await client.post("/auth/login", json={"email": ADMIN["email"]})
    assert response.status == 400
    assert code(await response.json()) == "INVALID_PAYLOAD"


async def test_an_unknown_mode_is_invalid_payload(client: Client) -> None:
    status, body, _ = await login(client, mode="telepathy")
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_e_mail_addresses_sign_in_without_case(client: Client) -> None:
    status, _, _ = await login(client, email="ADMIN@Example.com")
    assert status == 200


async def test_a_refresh_rotates_and_the_old_refresh_token_stops_working(client: Client) -> None:
    _, body, _ = await login(client)
    old = body["data"]["refresh_token"]
    first = await client.post("/auth/refresh", json={"refresh_token": old})
    assert first.status == 200
    new = (await first.json())["data"]
    assert new["refresh_token"] != old
    again = await client.post("/auth/refresh", json={"refresh_token": old})
    assert again.status == 401
    assert code(await again.json()) == "INVALID_CREDENTIALS"


async def refreshed(client: Client, token: str) -> tuple[int, str | None]:
    """The status of a refresh and the refresh token it handed out."""
    response = await client.post("/auth/refresh", json={"refresh_token": token})
    body = await response.json()
    return response.status, body["data"]["refresh_token"] if response.status == 200 else None


async def test_a_reused_refresh_token_ends_its_whole_sign_in_the_newest_token_too(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    _, body, _ = await login(client)
    first = body["data"]["refresh_token"]
    _, second = await refreshed(client, first)
    _, newest = await refreshed(client, str(second))
    response = await client.post("/auth/refresh", json={"refresh_token": first})
    assert (response.status, code(await response.json())) == (401, "INVALID_CREDENTIALS")
    assert (await refreshed(client, str(newest)))[0] == 401
    assert "a replaced refresh token was used again" in caplog.text
    assert first not in caplog.text


async def test_a_reused_refresh_token_leaves_the_users_other_sign_ins_alone(
    client: Client,
) -> None:
    _, this, _ = await login(client)
    _, other, _ = await login(client)
    old = this["data"]["refresh_token"]
    await refreshed(client, old)
    await refreshed(client, old)
    assert (await refreshed(client, other["data"]["refresh_token"]))[0] == 200


async def test_of_two_refreshes_with_one_token_at_once_one_wins_and_the_sign_in_ends(
    client: Client,
) -> None:
    """Two tabs refreshing with the same token: the second is a reuse, as any later one."""
    _, body, _ = await login(client)
    token = body["data"]["refresh_token"]
    results = await asyncio.gather(refreshed(client, token), refreshed(client, token))
    assert sorted(status for status, _ in results) == [200, 401]
    [winner] = [new for status, new in results if status == 200]
    assert (await refreshed(client, str(winner)))[0] == 401


async def test_a_reused_session_cookie_ends_its_sign_in(client: Client) -> None:
    _, _, response = await login(client, mode="session")
    old = response.cookies["platform_session_token"].value
    renewed = await client.post("/auth/refresh", json={"mode": "session"})
    assert renewed.status == 200
    newest = renewed.cookies["platform_session_token"].value
    client.session.cookie_jar.clear()

    def cookie(value: str) -> dict[str, str]:
        return {"Cookie": f"platform_session_token={value}"}

    reuse = await client.post("/auth/refresh", json={"mode": "session"}, headers=cookie(old))
    assert reuse.status == 401
    assert (await client.get("/users/me", headers=cookie(newest))).status == 401


async def test_logout_after_refreshes_ends_the_session(client: Client) -> None:
    _, body, _ = await login(client)
    _, newest = await refreshed(client, body["data"]["refresh_token"])
    response = await client.post("/auth/logout", json={"refresh_token": newest})
    assert response.status == 204
    assert (await refreshed(client, str(newest)))[0] == 401


async def test_logout_ends_the_session(client: Client) -> None:
    _, body, _ = await login(client)
    token = body["data"]["refresh_token"]
    response = await client.post("/auth/logout", json={"refresh_token": token})
    assert response.status == 204
    assert (await client.post("/auth/refresh", json={"refresh_token": token})).status == 401


async def test_refresh_without_a_token_is_invalid_payload(client: Client) -> None:
    response = await client.post("/auth/refresh", json={})
    assert response.status == 400
    assert code(await response.json()) == "INVALID_PAYLOAD"


async def test_cookie_mode_puts_the_refresh_token_in_an_http_only_cookie(client: Client) -> None:
    status, body, response = await login(client, mode="cookie")
    assert status == 200
    assert set(body["data"]) == {"access_token", "expires"}
    cookie = response.cookies["platform_refresh_token"]
    assert cookie["httponly"]
    refreshed = await client.post("/auth/refresh", json={"mode": "cookie"})
    assert refreshed.status == 200
    assert set((await refreshed.json())["data"]) == {"access_token", "expires"}


async def test_session_mode_keeps_every_token_in_the_session_cookie(client: Client) -> None:
    status, body, response = await login(client, mode="session")
    assert status == 200
    assert set(body["data"]) == {"expires"}
    assert response.cookies["platform_session_token"]["httponly"]
    # The test client keeps cookies: the session cookie alone authenticates.
    me = await client.get("/users/me")
    assert me.status == 200
    assert (await client.post("/auth/logout", json={"mode": "session"})).status == 204
    client.session.cookie_jar.update_cookies(
        {"platform_session_token": response.cookies["platform_session_token"].value}
    )
    after = await client.get("/users/me")
    assert after.status == 401
    assert code(await after.json()) == "INVALID_CREDENTIALS"


def signed(user_id: str, secret: bytes, lifetime: int) -> str:
    """A JWT as the service would issue it, signed with the key derived from `secret`."""
    now = int(time.time())
    claims = {
        "typ": "access",
        "id": user_id,
        "iss": "tracepoint",
        "iat": now - 100,
        "exp": now + lifetime,
    }
    return jwt.encode(claims, signing_key(secret), algorithm="HS256")


async def test_an_expired_access_token_is_token_expired(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    status, body = await call(
        client, "GET", "/users/me", token=signed(me["id"], b"test-secret", -10)
    )
    assert status == 401
    assert code(body) == "TOKEN_EXPIRED"


async def test_a_forged_access_token_is_invalid_token(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    status, body = await call(client, "GET", "/users/me", token=signed(me["id"], b"forged", 60))
    assert status == 403
    assert code(body) == "INVALID_TOKEN"


async def test_an_unknown_static_token_is_invalid_credentials(client: Client) -> None:
    status, body = await call(client, "GET", "/users/me", token="no-such-token")
    assert status == 401
    assert code(body) == "INVALID_CREDENTIALS"


async def test_users_me_without_a_user_is_invalid_credentials(client: Client) -> None:
    status, body = await call(client, "GET", "/users/me", token="")
    assert status == 401
    assert code(body) == "INVALID_CREDENTIALS"


async def test_a_static_token_set_on_a_user_authenticates_them(client: Client) -> None:
    user = await user_with(client)
    me = await ok(client, "GET", "/users/me", token=user.token)
    assert me == {"id": user.id}  # the user may not read the users collection


async def test_auth_lists_only_the_default_provider(client: Client) -> None:
    response = await client.get("/auth")
    assert await response.json() == {"data": [], "disableDefault": False}


async def test_a_new_password_ends_the_users_sessions(client: Client) -> None:
    user = await user_with(client)
    response = await client.post(
        "/auth/login", json={"email": user.email, "password": user.password}
    )
    refresh = (await response.json())["data"]["refresh_token"]
    await ok(client, "PATCH", f"/users/{user.id}", {"password": "a-new-password"})
    after = await client.post("/auth/refresh", json={"refresh_token": refresh})
    assert after.status == 401


async def test_a_token_from_an_e_mail_link_does_not_authenticate(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    now = int(time.time())
    link = {"email": me["email"], "scope": "password-reset", "id": me["id"], "iss": "tracepoint"}
    token = jwt.encode({**link, "iat": now, "exp": now + 60}, signing_key(b"test-secret"), "HS256")
    status, body = await call(client, "GET", "/users/me", token=token)
    assert (status, code(body)) == (403, "INVALID_TOKEN")


async def test_a_login_is_noted_as_the_users_last_access(client: Client) -> None:
    assert (await ok(client, "GET", "/users/me"))["last_access"] is None
    assert (await login(client))[0] == 200
    assert (await ok(client, "GET", "/users/me"))["last_access"].endswith("Z")


async def test_changing_ones_own_password_keeps_this_sign_in_and_ends_the_others(
    client: Client,
) -> None:
    own = {"id": {"_eq": "$CURRENT_USER"}}
    user = await user_with(
        client,
        {"collection": "users", "action": "update", "fields": ["password"], "permissions": own},
    )
    credentials = {"email": user.email, "password": user.password}
    this = (await (await client.post("/auth/login", json=credentials)).json())["data"]
    other = (await (await client.post("/auth/login", json=credentials)).json())["data"]
    status, _ = await call(
        client, "PATCH", "/users/me", {"password": "new-password-1"}, token=this["access_token"]
    )
    assert status in (200, 204)
    kept = await client.post("/auth/refresh", json={"refresh_token": this["refresh_token"]})
    ended = await client.post("/auth/refresh", json={"refresh_token": other["refresh_token"]})
    assert (kept.status, ended.status) == (200, 401)


async def test_the_production_password_cost_hashes_and_signs_in(
    database_url: str, aiohttp_client: Any
) -> None:
    """The other tests make cheap hashes (`CHEAP_PASSWORD_HASHES`); with the default
    settings the admin's password is hashed at Argon2id's default cost and still signs in."""
    defaults = {
        name: Settings.model_fields[name].default
        for name in ("password_hash_time_cost", "password_hash_memory_kib")
    }
    hasher = PasswordHasher()
    assert defaults == {
        "password_hash_time_cost": hasher.time_cost,
        "password_hash_memory_kib": hasher.memory_cost,
    }
    settings = make_settings(database_url, **defaults)
    service = Tracepoint(settings)
    await service.start()
    try:
        client: Client = await aiohttp_client(create_app(service, manage_lifecycle=False))
        status, _, _ = await login(client)
        assert status == 200
        wrong, _, _ = await login(client, password="nope")
        assert wrong == 401
        user = AccessReader(service.database).user_by_email(ADMIN["email"])
        assert user is not None
        assert user.password_hash is not None
        assert user.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    finally:
        await service.stop()
