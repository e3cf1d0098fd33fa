"""Single sign-on with OpenID Connect (issue 19), end to end against a real provider
(oidc-provider, started by `tests/access/openid_provider`): the browser is sent to the
provider, signs in at its login form, and comes back to `/auth/login/<provider>/callback`.
"""

import secrets
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import aiohttp
import pyotp
import pytest
from aiohttp import web

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, call, code, ok, user_with
from tests.access.openid_provider import OpenIDProvider, browser, running_provider, through_provider
from tests.conftest import make_settings
from tests.services import free_port

PROVIDER = "oidc"
PREFIX = f"AUTH_{PROVIDER.upper()}_"
#: The role first-time users get (made by the tests that look at it).
ROLE_ID = "5b0e7c1e-5f3a-4b8e-9a59-0c2b1d9a7e11"
#: An application elsewhere that the provider's allow list names.
ALLOWED = "http://app.example.com/signed-in"


@pytest.fixture(scope="module")
def service_port() -> int:
    """The port every service of this module listens on: the provider knows its callback."""
    return free_port()


@pytest.fixture(scope="module")
def openid_provider(service_port: int) -> Iterator[OpenIDProvider]:
    """The provider, one for the module, with the services' callback registered."""
    callback = f"http://127.0.0.1:{service_port}/auth/login/{PROVIDER}/callback"
    with running_provider([callback]) as provider:
        yield provider


@pytest.fixture
def provider_options() -> dict[str, str]:
    """The provider's `AUTH_OIDC_*` variables beyond the client's (a test may give its own)."""
    return {"ALLOW_PUBLIC_REGISTRATION": "true", "DEFAULT_ROLE_ID": ROLE_ID}


def _auth(provider: OpenIDProvider, options: dict[str, str]) -> dict[str, str]:
    return {
        "AUTH_PROVIDERS": PROVIDER,
        PREFIX + "DRIVER": "openid",
        PREFIX + "CLIENT_ID": provider.client_id,
        PREFIX + "CLIENT_SECRET": provider.client_secret,
        PREFIX + "ISSUER_URL": provider.issuer,
        PREFIX + "REDIRECT_ALLOW_LIST": ALLOWED,
        **{PREFIX + k: v for k, v in options.items()},
    }


@pytest.fixture
def settings(
    database_url: str,
    service_port: int,
    openid_provider: OpenIDProvider,
    provider_options: dict[str, str],
) -> Settings:
    """The service under test, at the address the provider sends browsers back to."""
    return make_settings(
        database_url,
        public_url=f"http://127.0.0.1:{service_port}",
        auth=_auth(openid_provider, provider_options),
    )


@pytest.fixture
async def base(tracepoint: Tracepoint, service_port: int) -> AsyncIterator[str]:
    """The service's address, served on the module's port."""
    async with _served(tracepoint, service_port) as url:
        yield url


class _served:
    """Serve a service on a port until the block ends."""

    def __init__(self, tracepoint: Tracepoint, port: int) -> None:
        self._runner = web.AppRunner(create_app(tracepoint, manage_lifecycle=False))
        self._port = port

    async def __aenter__(self) -> str:
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self._port, reuse_address=True).start()
        return f"http://127.0.0.1:{self._port}"

    async def __aexit__(self, *exc: object) -> None:
        await self._runner.cleanup()


@dataclass(frozen=True)
class Answer:
    """What the service answered a browser."""

    status: int
    location: str | None
    body: Any
    cookies: dict[str, str]


async def _get(session: aiohttp.ClientSession, url: str, **params: str) -> Answer:
    async with session.get(url, params=params, allow_redirects=False) as response:
        body = await response.json() if response.content_type == "application/json" else None
        cookies = {k: m.value for k, m in response.cookies.items()}
        return Answer(response.status, response.headers.get("Location"), body, cookies)


async def begin(session: aiohttp.ClientSession, base: str, **query: str) -> str:
    """Start a sign-in; the provider's authorization URL the service redirects to."""
    answer = await _get(session, f"{base}/auth/login/{PROVIDER}", **query)
    assert answer.status == 302, answer
    assert answer.location is not None
    return answer.location


async def callback_url(
    session: aiohttp.ClientSession, base: str, account: str, **query: str
) -> str:
    """Start a sign-in and sign in at the provider as `account`: the URL the provider sends
    the browser back to (not yet visited)."""
    authorize = await begin(session, base, **query)
    return await through_provider(session, authorize, account, _callback(base))


async def sign_in(session: aiohttp.ClientSession, base: str, account: str, **query: str) -> Answer:
    """A whole sign-in as `account`: the service's answer to the provider's callback."""
    return await _get(session, await callback_url(session, base, account, **query))


def _callback(base: str) -> str:
    return f"{base}/auth/login/{PROVIDER}/callback"


def _with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update(changes)
    return urlunsplit(parts._replace(query=urlencode(query)))


async def _role(client: Client) -> None:
    await ok(client, "POST", "/roles", {"id": ROLE_ID, "name": "Signed in elsewhere"})


async def _me(client: Client, base: str, token: str) -> Any:
    """The signed-in user's record (as the admin reads it: the user may read only its id)."""
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{base}/users/me", headers={"Authorization": f"Bearer {token}"}) as response,
    ):
        assert response.status == 200, await response.text()
        user_id = (await response.json())["data"]["id"]
    return await ok(client, "GET", f"/users/{user_id}")


# -- GET /auth --------------------------------------------------------------------------


@pytest.mark.parametrize("provider_options", [{"LABEL": "Company account", "ICON": "key"}])
async def test_auth_lists_the_configured_providers(client: Client) -> None:
    response = await client.get("/auth")
    assert await response.json() == {
        "data": [{"name": PROVIDER, "driver": "openid", "label": "Company account", "icon": "key"}],
        "disableDefault": False,
    }


# -- signing in -------------------------------------------------------------------------


async def test_a_first_sign_in_creates_the_user_with_the_default_role(
    client: Client, base: str
) -> None:
    await _role(client)
    async with browser() as session:
        answer = await sign_in(session, base, "alice", mode="json")
    assert answer.status == 200, answer
    tokens = answer.body["data"]
    assert set(tokens) == {"access_token", "refresh_token", "expires"}
    me = await _me(client, base, tokens["access_token"])
    assert me["email"] == "alice@example.com"
    assert me["first_name"] == "alice"
    assert me["role"] == ROLE_ID
    assert me["provider"] == PROVIDER
    assert me["external_identifier"] == "alice"


async def test_a_second_sign_in_finds_the_same_user(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        first = await sign_in(session, base, "alice", mode="json")
    async with browser() as session:
        second = await sign_in(session, base, "alice", mode="json")
    one = await _me(client, base, first.body["data"]["access_token"])
    two = await _me(client, base, second.body["data"]["access_token"])
    assert one["id"] == two["id"]


@pytest.mark.parametrize("provider_options", [{"ALLOW_PUBLIC_REGISTRATION": "false"}])
async def test_a_user_made_for_the_provider_is_linked_by_external_identifier(
    client: Client, base: str
) -> None:
    made = await ok(
        client,
        "POST",
        "/users",
        {"email": "robert@corp.example", "provider": PROVIDER, "external_identifier": "Bob"},
    )
    async with browser() as session:
        answer = await sign_in(session, base, "bob", mode="json")
    assert answer.status == 200, answer
    me = await _me(client, base, answer.body["data"]["access_token"])
    assert me["id"] == made["id"]
    assert me["email"] == "robert@corp.example"  # the provider's e-mail does not replace it
    assert me["auth_data"]["sub"] == "bob"


@pytest.mark.parametrize("provider_options", [{"ALLOW_PUBLIC_REGISTRATION": "false"}])
async def test_without_public_registration_an_unknown_user_is_refused(
    client: Client, base: str
) -> None:
    async with browser() as session:
        answer = await sign_in(session, base, "mallory", mode="json")
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"
    users = await ok(client, "GET", "/users", params={"fields": "external_identifier"})
    assert {"external_identifier": "mallory"} not in users


@pytest.mark.parametrize("provider_options", [{"ALLOW_PUBLIC_REGISTRATION": "false"}])
async def test_a_refused_sign_in_goes_back_to_the_redirect_with_the_reason(base: str) -> None:
    async with browser() as session:
        answer = await sign_in(session, base, "mallory", redirect=ALLOWED + "?from=button")
    assert answer.status == 302
    assert answer.location == ALLOWED + "?reason=INVALID_CREDENTIALS"
    assert "platform_session_token" not in answer.cookies


async def test_a_user_of_another_provider_is_not_linked(client: Client, base: str) -> None:
    # Same e-mail as the provider gives, but a password user: Directus refuses rather than
    # hands the account over.
    await _role(client)
    await ok(client, "POST", "/users", {"email": "carol@example.com", "password": "pw-carol"})
    async with browser() as session:
        answer = await sign_in(session, base, "carol", mode="json")
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"


async def test_password_sign_in_is_refused_to_a_user_of_a_provider(client: Client) -> None:
    await ok(
        client,
        "POST",
        "/users",
        {
            "email": "dave@example.com",
            "password": "pw-dave",
            "provider": PROVIDER,
            "external_identifier": "dave",
        },
    )
    status, body = await call(
        client, "POST", "/auth/login", {"email": "dave@example.com", "password": "pw-dave"}
    )
    assert status == 401
    assert code(body) == "INVALID_CREDENTIALS"


async def test_a_suspended_user_is_refused(client: Client, base: str) -> None:
    await ok(
        client,
        "POST",
        "/users",
        {"email": "erin@example.com", "provider": PROVIDER, "external_identifier": "erin"},
    )
    users = await ok(client, "GET", "/users", params={"filter[external_identifier][_eq]": "erin"})
    await ok(client, "PATCH", f"/users/{users[0]['id']}", {"status": "suspended"})
    async with browser() as session:
        answer = await sign_in(session, base, "erin", mode="json")
    assert answer.status == 401
    assert code(answer.body) == "USER_SUSPENDED"


# -- modes and redirects ----------------------------------------------------------------


async def test_session_mode_sets_the_session_cookie_and_redirects_to_the_console(
    client: Client, base: str
) -> None:
    await _role(client)
    async with browser() as session:
        answer = await sign_in(session, base, "frank", redirect="/console/", mode="session")
        assert answer.status == 302
        assert answer.location == f"{base}/console/"
        assert "platform_session_token" in answer.cookies
        # The browser's next request is signed in by the cookie alone.
        async with session.get(f"{base}/users/me") as me:
            assert me.status == 200
            user_id = (await me.json())["data"]["id"]
    assert (await ok(client, "GET", f"/users/{user_id}"))["email"] == "frank@example.com"


async def test_a_redirect_signs_in_in_session_mode_by_default(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        answer = await sign_in(session, base, "grace", redirect=f"{base}/console/#/items")
    assert answer.status == 302
    assert answer.location == f"{base}/console/#/items"
    assert set(answer.cookies) >= {"platform_session_token"}


async def test_cookie_mode_sets_the_refresh_cookie_for_an_allow_listed_redirect(
    client: Client, base: str
) -> None:
    await _role(client)
    async with browser() as session:
        answer = await sign_in(session, base, "heidi", redirect=ALLOWED, mode="cookie")
        assert answer.status == 302
        assert answer.location == ALLOWED
        assert "platform_refresh_token" in answer.cookies
        async with session.post(f"{base}/auth/refresh", json={"mode": "json"}) as refreshed:
            # json mode wants the token in the body; the cookie is cookie mode's.
            assert refreshed.status == 400
        async with session.post(f"{base}/auth/refresh", json={"mode": "cookie"}) as refreshed:
            assert refreshed.status == 200
            assert "access_token" in (await refreshed.json())["data"]


async def test_without_a_redirect_json_mode_answers_the_tokens(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        answer = await sign_in(session, base, "ivan")
    assert answer.status == 200
    assert set(answer.body["data"]) == {"access_token", "refresh_token", "expires"}


@pytest.mark.parametrize(
    "redirect",
    [
        "http://evil.example.com/",
        "http://app.example.com/elsewhere",
        "https://app.example.com/signed-in",
        "//evil.example.com/",
        "/\\evil.example.com/",
        "javascript:alert(1)",
    ],
)
async def test_a_redirect_off_the_allow_list_is_refused(base: str, redirect: str) -> None:
    async with browser() as session:
        answer = await _get(session, f"{base}/auth/login/{PROVIDER}", redirect=redirect)
    assert answer.status == 400
    assert code(answer.body) == "INVALID_PAYLOAD"


async def test_json_mode_cannot_redirect(base: str) -> None:
    async with browser() as session:
        answer = await _get(
            session, f"{base}/auth/login/{PROVIDER}", redirect="/console/", mode="json"
        )
    assert answer.status == 400
    assert code(answer.body) == "INVALID_PAYLOAD"


# -- state, nonce, browser --------------------------------------------------------------


async def test_the_authorization_request_carries_pkce_state_and_nonce(base: str) -> None:
    async with browser() as session:
        first = dict(parse_qsl(urlsplit(await begin(session, base)).query))
        second = dict(parse_qsl(urlsplit(await begin(session, base)).query))
    assert first["response_type"] == "code"
    assert first["code_challenge_method"] == "S256"
    assert first["redirect_uri"] == _callback(base)
    for name in ("state", "nonce", "code_challenge"):
        assert len(first[name]) >= 20
        assert first[name] != second[name]
    assert first["state"] != first["nonce"]


async def test_a_callback_posted_as_a_form_goes_on_to_the_get_callback(base: str) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            _callback(base), data={"state": "s", "code": "c"}, allow_redirects=False
        ) as response,
    ):
        assert response.status == 303
        location = response.headers["Location"]
    assert urlsplit(location).path == f"/auth/login/{PROVIDER}/callback"
    assert dict(parse_qsl(urlsplit(location).query)) == {"state": "s", "code": "c"}


async def test_a_callback_with_an_unknown_state_is_refused(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        url = await callback_url(session, base, "judy", mode="json")
        answer = await _get(session, _with_query(url, state=secrets.token_urlsafe(20)))
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"


async def test_a_callback_without_state_is_refused(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        url = await callback_url(session, base, "judy", mode="json")
        parts = urlsplit(url)
        query = [(k, v) for k, v in parse_qsl(parts.query) if k != "state"]
        answer = await _get(session, urlunsplit(parts._replace(query=urlencode(query))))
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"


async def test_a_callback_works_once(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        url = await callback_url(session, base, "ken", mode="json")
        first = await _get(session, url)
        again = await _get(session, url)
    assert first.status == 200
    assert again.status == 401
    assert code(again.body) == "INVALID_CREDENTIALS"


async def test_a_callback_in_another_browser_is_refused(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        url = await callback_url(session, base, "leo", mode="json")
    # Someone else's browser (a login CSRF: the attacker's code in the victim's browser).
    async with browser() as other:
        answer = await _get(other, url)
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"


async def test_an_id_token_for_another_nonce_is_refused(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        authorize = await begin(session, base, mode="json")
        # The provider signs whatever nonce it is asked for: here not the flow's.
        tampered = _with_query(authorize, nonce=secrets.token_urlsafe(20))
        url = await through_provider(session, tampered, "mike", _callback(base))
        answer = await _get(session, url)
    assert answer.status == 401
    assert code(answer.body) == "INVALID_CREDENTIALS"


async def test_a_code_the_provider_did_not_issue_is_refused(client: Client, base: str) -> None:
    await _role(client)
    async with browser() as session:
        url = await callback_url(session, base, "nina", mode="json")
        answer = await _get(session, _with_query(url, code="not-a-code"))
    assert answer.status == 403
    assert code(answer.body) == "INVALID_TOKEN"


async def test_a_flow_started_by_one_process_finishes_in_another(
    client: Client, tracepoint: Tracepoint, settings: Settings, service_port: int
) -> None:
    await _role(client)
    async with browser() as session:
        async with _served(tracepoint, service_port) as base:
            url = await callback_url(session, base, "olga", mode="json")
        other = Tracepoint(settings)
        await other.start()
        try:
            async with _served(other, service_port):
                answer = await _get(session, url)
        finally:
            await other.stop()
    assert answer.status == 200, answer
    assert "access_token" in answer.body["data"]


# -- policies ---------------------------------------------------------------------------


async def _provider_user(client: Client, account: str, **policy: Any) -> str:
    """A user of the provider holding one new policy (with read on roles)."""
    made = await user_with(client, {"collection": "roles", "action": "read"}, **policy)
    await ok(
        client,
        "PATCH",
        f"/users/{made.id}",
        {"provider": PROVIDER, "external_identifier": account, "password": None},
    )
    return made.id


async def _roles_status(base: str, token: str) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{base}/roles", headers={"Authorization": f"Bearer {token}"}) as response,
    ):
        return response.status, await response.json()


async def test_ip_access_of_a_policy_applies_to_single_sign_on_users(
    client: Client, base: str
) -> None:
    await _provider_user(client, "pat", ip_access="10.0.0.0/8")
    await _provider_user(client, "quinn", ip_access="127.0.0.0/8")
    async with browser() as session:
        outside = await sign_in(session, base, "pat", mode="json")
    async with browser() as session:
        inside = await sign_in(session, base, "quinn", mode="json")
    assert (await _roles_status(base, outside.body["data"]["access_token"]))[0] == 403
    assert (await _roles_status(base, inside.body["data"]["access_token"]))[0] == 200


async def test_enforce_tfa_leaves_a_single_sign_on_user_only_the_setup(
    client: Client, base: str
) -> None:
    await _provider_user(client, "rita", enforce_tfa=True)
    async with browser() as session:
        answer = await sign_in(session, base, "rita", mode="json")
    token = answer.body["data"]["access_token"]
    status, body = await _roles_status(base, token)
    assert status == 403
    assert "Two-factor authentication must be enabled" in body["errors"][0]["message"]
    assert (await _me(client, base, token))["external_identifier"] == "rita"


async def _with_tfa(client: Client, base: str, account: str) -> str:
    """A provider's user under enforce_tfa who has set TFA up (with no password); the secret."""
    await _provider_user(client, account, enforce_tfa=True)
    async with browser() as session:
        first = await sign_in(session, base, account, mode="json")
    token = first.body["data"]["access_token"]
    generated = await ok(client, "POST", "/users/me/tfa/generate", {}, token=token)
    secret = str(generated["secret"])
    await ok(
        client,
        "POST",
        "/users/me/tfa/enable",
        {"secret": secret, "otp": pyotp.TOTP(secret).now()},
        token=token,
    )
    return secret


async def test_a_single_sign_on_user_sets_up_tfa_without_a_password_and_then_needs_the_code(
    client: Client, base: str
) -> None:
    secret = await _with_tfa(client, base, "tess")
    async with browser() as session:
        without = await sign_in(session, base, "tess", mode="json")
    async with browser() as session:
        wrong = await sign_in(session, base, "tess", mode="json", otp="000000")
    async with browser() as session:
        right = await sign_in(session, base, "tess", mode="json", otp=pyotp.TOTP(secret).now())
    assert (without.status, code(without.body)) == (401, "INVALID_OTP")
    assert (wrong.status, code(wrong.body)) == (401, "INVALID_OTP")
    assert right.status == 200
    assert (await _roles_status(base, right.body["data"]["access_token"]))[0] == 200


async def test_wrong_codes_in_a_row_lock_the_single_sign_on_too(client: Client, base: str) -> None:
    secret = await _with_tfa(client, base, "uma")
    for _ in range(5):  # TRACEPOINT_LOGIN_LOCK_AFTER
        async with browser() as session:
            wrong = await sign_in(session, base, "uma", mode="json", otp="000000")
        assert code(wrong.body) == "INVALID_OTP"
    async with browser() as session:
        locked = await sign_in(session, base, "uma", mode="json", otp=pyotp.TOTP(secret).now())
    assert (locked.status, code(locked.body)) == (429, "REQUESTS_EXCEEDED")


async def test_a_password_user_still_gives_the_password_to_set_up_tfa(client: Client) -> None:
    user = await user_with(client)
    status, body = await call(client, "POST", "/users/me/tfa/generate", {}, token=user.token)
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


# -- providers that cannot be used ------------------------------------------------------


async def test_an_unknown_provider_is_refused(base: str) -> None:
    async with browser() as session:
        answer = await _get(session, f"{base}/auth/login/nobody")
    assert answer.status == 403
    assert code(answer.body) == "INVALID_PROVIDER"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_provider_without_client_secret_is_a_config_error(
    database_url: str, aiohttp_client: Any, service_port: int, openid_provider: OpenIDProvider
) -> None:
    auth = _auth(openid_provider, {})
    del auth[PREFIX + "CLIENT_SECRET"]
    settings = make_settings(database_url, auth=auth)
    service = Tracepoint(settings)
    await service.start()
    try:
        client = await aiohttp_client(create_app(service, manage_lifecycle=False))
        status, body = await call(client, "GET", f"/auth/login/{PROVIDER}")
        listed = await ok(client, "GET", "/auth")
    finally:
        await service.stop()
    assert status == 503
    assert code(body) == "INVALID_PROVIDER_CONFIG"
    assert listed == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_unreachable_provider_is_service_unavailable(
    database_url: str, aiohttp_client: Any, openid_provider: OpenIDProvider
) -> None:
    auth = {**_auth(openid_provider, {}), PREFIX + "ISSUER_URL": f"http://127.0.0.1:{free_port()}"}
    service = Tracepoint(make_settings(database_url, auth=auth))
    await service.start()
    try:
        client = await aiohttp_client(create_app(service, manage_lifecycle=False))
        status, body = await call(client, "GET", f"/auth/login/{PROVIDER}")
    finally:
        await service.stop()
    assert status == 503
    assert code(body) == "SERVICE_UNAVAILABLE"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_disable_default_lists_it_and_removes_password_sign_in(
    database_url: str, aiohttp_client: Any, openid_provider: OpenIDProvider
) -> None:
    auth = {**_auth(openid_provider, {}), "AUTH_DISABLE_DEFAULT": "true"}
    service = Tracepoint(make_settings(database_url, auth=auth))
    await service.start()
    try:
        client = await aiohttp_client(create_app(service, manage_lifecycle=False))
        listed = await (await client.get("/auth")).json()
        status, body = await call(
            client,
            "POST",
            "/auth/login",
            {"email": "admin@example.com", "password": "correct horse battery staple"},
        )
    finally:
        await service.stop()
    assert listed["disableDefault"] is True
    assert status == 404
    assert code(body) == "ROUTE_NOT_FOUND"


async def test_a_default_role_that_does_not_exist_is_a_config_error(base: str) -> None:
    async with browser() as session:
        answer = await sign_in(session, base, "sam", mode="json")
    assert answer.status == 503
    assert code(answer.body) == "INVALID_PROVIDER_CONFIG"
