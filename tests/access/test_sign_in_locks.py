"""Failed sign-ins lock the password sign-in for a while, per account and per client
address, and never the account: its static token and its sessions keep working."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, MadeUser, call, code, ok, user_with
from tests.access.test_mail_pages import PUBLIC_URL, link_in, raw_mail
from tests.access.test_user_flows import enable_tfa
from tests.conftest import make_settings

ADMIN = {"email": "admin@example.com", "password": "correct horse battery staple"}
#: Three failures in a row lock an account, five an address: for 60 s, then 120 s, …
LOCKS = {
    "trust_proxy": True,
    "login_lock_after": 3,
    "login_address_lock_after": 5,
    "login_lock_duration": 60.0,
    "login_lock_max_duration": 600.0,
    "login_failures_per_minute": 100,
}


class Clock:
    """Time that moves on by a millisecond at each reading, and by as much as a test says."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@contextlib.asynccontextmanager
async def service(
    database_url: str, aiohttp_client: Any, clock: Clock, **settings: Any
) -> AsyncIterator[Client]:
    """A started service on the database, reading `clock`, and a client for it."""
    tracepoint = Tracepoint(make_settings(database_url, **{**LOCKS, **settings}), clock=clock)
    await tracepoint.start()
    try:
        yield await aiohttp_client(create_app(tracepoint, manage_lifecycle=False))
    finally:
        await tracepoint.stop()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service_clock(clock: Clock) -> Clock:
    """The service under test (`client`) reads the test's clock."""
    return clock


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url, **LOCKS)


async def login(
    client: Client, email: str, password: str, address: str = "10.0.0.1", **body: Any
) -> tuple[int, Any, Any]:
    """Sign in from a client address (the proxy's X-Forwarded-For)."""
    response = await client.post(
        "/auth/login",
        json={"email": email, "password": password, **body},
        headers={"X-Forwarded-For": address},
    )
    return response.status, await response.json(), response


async def fail(client: Client, email: str, times: int, address: str = "10.0.0.1") -> list[int]:
    """Sign in with a wrong password `times` times; the statuses."""
    return [(await login(client, email, "wrong", address))[0] for _ in range(times)]


async def retry_after(client: Client, email: str, password: str) -> int:
    """The seconds a locked sign-in says to wait."""
    status, body, response = await login(client, email, password, "10.0.0.200")
    assert (status, code(body)) == (429, "REQUESTS_EXCEEDED"), (status, body)
    return int(response.headers["Retry-After"])


async def refresh(client: Client, token: str) -> tuple[int, Any]:
    response = await client.post("/auth/refresh", json={"refresh_token": token})
    return response.status, await response.json()


async def signed_in(client: Client, user: MadeUser) -> str:
    """A refresh token of a new sign-in of the user."""
    status, body, _ = await login(client, user.email, user.password, "10.0.0.100")
    assert status == 200, body
    return str(body["data"]["refresh_token"])


async def test_failures_from_several_addresses_lock_the_sign_in_not_the_account(
    client: Client,
) -> None:
    user = await user_with(client, {"collection": "epcis_event", "action": "read"})
    refresh_token = await signed_in(client, user)
    statuses = [(await fail(client, user.email, 1, f"10.0.0.{i}"))[0] for i in range(6)]
    assert statuses == [401, 401, 401, 429, 429, 429]
    assert (await ok(client, "GET", f"/users/{user.id}"))["status"] == "active"
    assert (await call(client, "GET", "/users/me", token=user.token))[0] == 200
    assert (await call(client, "GET", "/v2/epcis/events", token=user.token))[0] == 200
    assert (await refresh(client, refresh_token))[0] == 200


async def test_a_locked_sign_in_refuses_the_right_password_too(client: Client) -> None:
    user = await user_with(client)
    await fail(client, user.email, 3)
    status, body, response = await login(client, user.email, user.password, "10.0.0.2")
    assert status == 429
    assert response.headers["Retry-After"] == "60"
    assert body["errors"] == [
        {
            "message": "Too many requests, retry after 60s.",
            "extensions": {"code": "REQUESTS_EXCEEDED", "limit": 3, "reset": 60},
        }
    ]


async def test_sign_ins_sent_at_once_cannot_pass_the_account_lock(client: Client) -> None:
    async def attempt(n: int) -> int:
        return (await login(client, ADMIN["email"], "wrong", f"10.0.1.{n}"))[0]

    statuses = await asyncio.gather(*(attempt(n) for n in range(12)))
    assert sorted(statuses) == [401] * 3 + [429] * 9


async def test_an_unknown_e_mail_is_locked_like_a_known_one(client: Client) -> None:
    assert await fail(client, "nobody@example.com", 4) == [401, 401, 401, 429]


async def test_each_failure_after_a_lock_doubles_it(client: Client, clock: Clock) -> None:
    user = await user_with(client)
    await fail(client, user.email, 3)
    assert await retry_after(client, user.email, user.password) == 60
    clock.advance(60)
    assert await fail(client, user.email, 1) == [401]
    assert await retry_after(client, user.email, user.password) == 120
    clock.advance(120)
    assert await fail(client, user.email, 1) == [401]
    assert await retry_after(client, user.email, user.password) == 240


async def test_the_lock_is_never_longer_than_the_longest(client: Client, clock: Clock) -> None:
    user = await user_with(client)
    await fail(client, user.email, 3)
    for seconds in (60, 120, 240, 480):
        clock.advance(seconds)
        await fail(client, user.email, 1)
    assert await retry_after(client, user.email, user.password) == 600


async def test_a_success_after_the_lock_ends_starts_the_count_again(
    client: Client, clock: Clock
) -> None:
    user = await user_with(client)
    await fail(client, user.email, 3)
    clock.advance(60)
    assert (await login(client, user.email, user.password))[0] == 200
    # From another address: the first one's failures are still counted (see below).
    assert await fail(client, user.email, 2, "10.0.0.2") == [401, 401]
    assert (await login(client, user.email, user.password))[0] == 200


async def test_one_address_failing_on_many_accounts_is_locked(client: Client) -> None:
    statuses = [(await login(client, f"u{i}@example.com", "x", "10.0.0.7"))[0] for i in range(6)]
    assert statuses == [401] * 5 + [429]
    assert (await login(client, ADMIN["email"], ADMIN["password"], "10.0.0.7"))[0] == 429
    assert (await login(client, ADMIN["email"], ADMIN["password"], "10.0.0.8"))[0] == 200


async def test_signing_in_to_an_own_account_between_guesses_does_not_unlock_the_address(
    client: Client,
) -> None:
    own = await user_with(client)
    statuses = []
    for i in range(3):
        # Two guesses at other accounts, then a sign-in of the guesser's own account.
        statuses += [
            (await login(client, f"v{i}{j}@example.com", "x", "10.0.0.9"))[0] for j in (1, 2)
        ]
        statuses.append((await login(client, own.email, own.password, "10.0.0.9"))[0])
    assert statuses == [401, 401, 200, 401, 401, 200, 401, 429, 429]


async def test_a_sign_in_that_meets_a_database_failure_is_no_failure(
    client: Client, tracepoint: Tracepoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await user_with(client)
    reader = tracepoint.access.authenticator._access.reader

    def unavailable(email: str) -> None:
        raise ConnectionError("the database went away")

    with monkeypatch.context() as patch:
        patch.setattr(reader, "user_by_email", unavailable)
        for _ in range(5):
            status, _, _ = await login(client, user.email, user.password)
            assert status >= 500
    assert (await login(client, user.email, user.password))[0] == 200


async def test_a_wrong_one_time_password_counts_as_a_failure(client: Client) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    wrong = "000000" if pyotp.TOTP(secret).now() != "000000" else "111111"
    for _ in range(3):
        status, body, _ = await login(client, user.email, user.password, otp=wrong)
        assert (status, code(body)) == (401, "INVALID_OTP")
    right = pyotp.TOTP(secret).now()
    assert (await login(client, user.email, user.password, otp=right))[0] == 429


async def test_a_missing_one_time_password_is_no_failure(client: Client) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    for _ in range(5):
        status, body, _ = await login(client, user.email, user.password)
        assert (status, code(body)) == (401, "INVALID_OTP")
    right = pyotp.TOTP(secret).now()
    assert (await login(client, user.email, user.password, otp=right))[0] == 200


async def test_the_lock_holds_across_two_services_on_one_database(
    database_url: str, aiohttp_client: Any, clock: Clock
) -> None:
    async with (
        service(database_url, aiohttp_client, clock) as first,
        service(database_url, aiohttp_client, clock) as second,
    ):
        assert await fail(first, ADMIN["email"], 2) == [401, 401]
        assert await fail(second, ADMIN["email"], 1) == [401]
        assert (await login(first, ADMIN["email"], ADMIN["password"]))[0] == 429
        assert (await login(second, ADMIN["email"], ADMIN["password"]))[0] == 429


async def test_failures_lock_the_last_administrator_only_for_a_while(
    client: Client, clock: Clock
) -> None:
    await fail(client, ADMIN["email"], 3)
    assert (await login(client, ADMIN["email"], ADMIN["password"]))[0] == 429
    # The admin's static token (the tests' AUTH) still works meanwhile.
    assert (await ok(client, "GET", "/users/me"))["email"] == ADMIN["email"]
    clock.advance(60)
    assert (await login(client, ADMIN["email"], ADMIN["password"]))[0] == 200


async def test_an_administrator_can_still_suspend_an_account(client: Client) -> None:
    user = await user_with(client)
    refresh_token = await signed_in(client, user)
    await ok(client, "PATCH", f"/users/{user.id}", {"status": "suspended"})
    status, body = await call(client, "GET", "/users/me", token=user.token)
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")
    status, body, _ = await login(client, user.email, user.password)
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")
    status, body = await refresh(client, refresh_token)
    assert (status, code(body)) == (401, "USER_SUSPENDED")


async def test_failed_logins_from_one_address_are_rate_limited(
    database_url: str, aiohttp_client: Any, clock: Clock
) -> None:
    """Apart from the locks, an address may fail only so often a minute."""
    async with service(
        database_url,
        aiohttp_client,
        clock,
        login_failures_per_minute=5,
        login_address_lock_after=50,
    ) as client:
        statuses = [(await login(client, f"u{i}@example.com", "x"))[0] for i in range(5)]
        assert statuses == [401] * 5
        status, body, response = await login(client, ADMIN["email"], ADMIN["password"])
        assert (status, code(body)) == (429, "REQUESTS_EXCEEDED")
        assert int(response.headers["Retry-After"]) >= 1
        clock.advance(60)
        assert (await login(client, ADMIN["email"], ADMIN["password"]))[0] == 200


async def test_successful_logins_do_not_count_towards_the_rate_limit(
    database_url: str, aiohttp_client: Any, clock: Clock
) -> None:
    async with service(database_url, aiohttp_client, clock, login_failures_per_minute=5) as client:
        for _ in range(8):
            assert (await login(client, ADMIN["email"], ADMIN["password"]))[0] == 200


def lock_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "application.access.throttle" and r.levelno == logging.WARNING
    ]


async def test_a_lock_starting_logs_one_warning_naming_the_account_by_its_id(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    user = await user_with(client)
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        await fail(client, user.email, 2)
        assert lock_lines(caplog) == []
        await fail(client, user.email, 3)  # the third locks; the others are refused
    assert lock_lines(caplog) == [
        f"Password sign-in of account user {user.id} locked for 60 s after 3 failures in a row"
    ]
    assert user.email not in caplog.text
    assert "wrong" not in caplog.text  # the password tried


async def test_each_lengthened_lock_logs_its_own_warning(
    client: Client, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    user = await user_with(client)
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        await fail(client, user.email, 3)
        clock.advance(60)
        await fail(client, user.email, 1)
    assert [line.split(" locked for ")[1] for line in lock_lines(caplog)] == [
        "60 s after 3 failures in a row",
        "120 s after 4 failures in a row",
    ]


async def test_a_locked_unknown_e_mail_is_logged_masked(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        await fail(client, "nobody@example.com", 3)
    assert lock_lines(caplog) == [
        "Password sign-in of account unknown e-mail n***@example.com locked for 60 s"
        " after 3 failures in a row"
    ]


async def test_a_locked_address_is_logged_with_the_address(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        for i in range(5):
            await login(client, f"u{i}@example.com", "x", "10.0.0.7")
    assert lock_lines(caplog) == [
        "Password sign-in of address 10.0.0.7 locked for 60 s after 5 failures in a row"
    ]


async def test_a_sign_in_the_lock_refuses_logs_nothing_more(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    user = await user_with(client)
    await fail(client, user.email, 3)
    caplog.clear()
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        assert await fail(client, user.email, 2) == [429, 429]
    assert lock_lines(caplog) == []


async def test_a_password_reset_lifts_the_accounts_lock_at_once(
    database_url: str, aiohttp_client: Any, clock: Clock, tmp_path: Path
) -> None:
    async with service(
        database_url, aiohttp_client, clock, mail_dir=str(tmp_path / "mail"), public_url=PUBLIC_URL
    ) as client:
        user = await user_with(client)
        await fail(client, user.email, 3)
        assert (await login(client, user.email, user.password, "10.0.0.2"))[0] == 429
        status, _ = await call(
            client, "POST", "/auth/password/request", {"email": user.email}, token=""
        )
        assert status == 204
        link = link_in(await raw_mail(client, tmp_path, user.email), "/console/reset-password")
        [token] = parse_qs(urlsplit(link).query)["token"]
        body = {"token": token, "password": "a new password 123"}
        assert (await call(client, "POST", "/auth/password/reset", body, token=""))[0] == 204
        assert (await login(client, user.email, "a new password 123", "10.0.0.2"))[0] == 200
        # Its failures went too: a slip now is the first of three again.
        assert await fail(client, user.email, 2, "10.0.0.3") == [401, 401]
        assert (await login(client, user.email, "a new password 123", "10.0.0.3"))[0] == 200


async def test_a_password_reset_leaves_the_address_lock(
    database_url: str, aiohttp_client: Any, clock: Clock, tmp_path: Path
) -> None:
    """Whoever guessed from an address proved nothing by someone else's reset."""
    async with service(
        database_url, aiohttp_client, clock, mail_dir=str(tmp_path / "mail"), public_url=PUBLIC_URL
    ) as client:
        user = await user_with(client)
        for i in range(5):
            await login(client, f"u{i}@example.com", "x", "10.0.0.7")
        await call(client, "POST", "/auth/password/request", {"email": user.email}, token="")
        link = link_in(await raw_mail(client, tmp_path, user.email), "/console/reset-password")
        [token] = parse_qs(urlsplit(link).query)["token"]
        body = {"token": token, "password": "a new password 123"}
        assert (await call(client, "POST", "/auth/password/reset", body, token=""))[0] == 204
        assert (await login(client, user.email, "a new password 123", "10.0.0.7"))[0] == 429


async def test_wrong_one_time_passwords_log_the_lock_they_start_and_a_missing_one_none(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    wrong = "000000" if pyotp.TOTP(secret).now() != "000000" else "111111"
    with caplog.at_level(logging.WARNING, "application.access.throttle"):
        for _ in range(3):
            await login(client, user.email, user.password)  # no code: no failure
        assert lock_lines(caplog) == []
        for _ in range(3):
            await login(client, user.email, user.password, otp=wrong)
    assert lock_lines(caplog) == [
        f"Password sign-in of account user {user.id} locked for 60 s after 3 failures in a row"
    ]
