"""Registration, invitations, password resets, notifications by e-mail and two-factor
sign-in, end to end: the mails are read from a real SMTP server in the test process."""

import re
from collections.abc import AsyncIterator, Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pyotp
import pytest
from aiohttp.test_utils import TestClient
from aiosmtpd.controller import Controller

from api.platform.keys import TRACEPOINT
from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import make_settings
from tests.services import free_port

VERIFY_URL = "https://app.example.com/verify"
INVITE_URL = "https://app.example.com/invite"
RESET_URL = "https://app.example.com/reset"


class Inbox:
    """An SMTP handler that keeps what it receives."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


async def _client(
    aiohttp_client: Any, database_url: str, **overrides: Any
) -> AsyncIterator[Client]:
    service = Tracepoint(make_settings(database_url, **overrides))
    await service.start()
    client: TestClient[Any, Any] = await aiohttp_client(create_app(service, manage_lifecycle=False))
    try:
        yield client
    finally:
        await service.stop()


@pytest.fixture
async def mail_client(
    database_url: str, aiohttp_client: Any, smtp: tuple[Inbox, int]
) -> AsyncIterator[Client]:
    async for client in _client(
        aiohttp_client,
        database_url,
        email_smtp_host="127.0.0.1",
        email_smtp_port=smtp[1],
        email_from="tracepoint@example.com",
        public_registration=True,
        user_register_url_allow_list=VERIFY_URL,
        user_invite_url_allow_list=INVITE_URL,
        password_reset_url_allow_list=RESET_URL,
    ):
        yield client


async def delivered(client: Client) -> None:
    """Wait until the service has sent the mail it has queued."""
    await client.app[TRACEPOINT].access.outbox.flush()


def token_in(message: Message, base: str) -> str:
    body = message.get_payload(decode=True).decode()  # type: ignore[union-attr]
    match = re.search(re.escape(base) + r"\?token=([\w.\-]+)", body)
    assert match, body
    return match.group(1)


async def login(client: Client, email: str, password: str, **extra: Any) -> tuple[int, Any]:
    response = await client.post(
        "/auth/login", json={"email": email, "password": password, **extra}
    )
    return response.status, await response.json()


async def test_a_registered_user_signs_in_after_verifying_the_address(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    inbox, _ = smtp
    status, _ = await call(
        mail_client,
        "POST",
        "/users/register",
        {"email": "new@example.com", "password": "pw-123456", "verification_url": VERIFY_URL},
        token="",
    )
    assert status == 204
    await delivered(mail_client)
    [mail] = inbox.to("new@example.com")
    assert mail["From"] == "tracepoint@example.com"
    assert (await login(mail_client, "new@example.com", "pw-123456"))[0] == 401
    response = await mail_client.get(
        "/users/register/verify-email", params={"token": token_in(mail, VERIFY_URL)}
    )
    assert response.status == 204
    assert (await login(mail_client, "new@example.com", "pw-123456"))[0] == 200


BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


async def registered(client: Client, inbox: Inbox, email: str) -> str:
    """Register `email` and give the token of its verification mail."""
    body = {"email": email, "password": "pw-123456", "verification_url": VERIFY_URL}
    assert (await call(client, "POST", "/users/register", body, token=""))[0] == 204
    await delivered(client)
    [mail] = inbox.to(email)
    return token_in(mail, VERIFY_URL)


async def test_a_browser_opening_an_older_verification_link_is_sent_to_the_consoles_page(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    token = await registered(mail_client, smtp[0], "page@example.com")
    url = "/users/register/verify-email"
    response = await mail_client.get(
        url, params={"token": token}, headers=BROWSER, allow_redirects=False
    )
    assert response.status == 302
    assert response.headers["Cache-Control"] == "no-store"
    assert urljoin(url, response.headers["Location"]) == f"/console/verify-email?token={token}"
    # Only the console's page verifies: opening the link did not.
    assert (await login(mail_client, "page@example.com", "pw-123456"))[0] == 401


async def test_a_verification_link_opened_twice_is_refused_the_second_time(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    token = await registered(mail_client, smtp[0], "twice@example.com")
    url, headers = "/users/register/verify-email", {"Accept": "application/json"}
    first = await mail_client.get(url, params={"token": token}, headers=headers)
    assert first.status == 204
    again = await mail_client.get(url, params={"token": token}, headers=headers)
    assert again.status == 400


@pytest.mark.parametrize("accept", ["*/*", "application/json, text/html;q=0.9"])
async def test_a_client_not_preferring_html_gets_the_api_answer(
    mail_client: Client, smtp: tuple[Inbox, int], accept: str
) -> None:
    token = await registered(mail_client, smtp[0], "curl@example.com")
    response = await mail_client.get(
        "/users/register/verify-email", params={"token": token}, headers={"Accept": accept}
    )
    assert (response.status, await response.read()) == (204, b"")


async def test_an_api_client_verifying_gets_204_and_directus_errors(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    token = await registered(mail_client, smtp[0], "api@example.com")
    headers = {"Accept": "application/json"}
    url = "/users/register/verify-email"
    response = await mail_client.get(url, params={"token": token}, headers=headers)
    assert (response.status, await response.read()) == (204, b"")
    response = await mail_client.get(url, params={"token": "bad"}, headers=headers)
    assert response.status == 403
    assert (await response.json())["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_registering_a_taken_address_answers_alike_and_creates_nothing(
    mail_client: Client,
) -> None:
    status, _ = await call(
        mail_client,
        "POST",
        "/users/register",
        {"email": "admin@example.com", "password": "x-123456"},
        token="",
    )
    assert status == 204
    assert (await login(mail_client, "admin@example.com", "x-123456"))[0] == 401


async def test_a_verification_url_outside_the_allow_list_is_refused(mail_client: Client) -> None:
    status, body = await call(
        mail_client,
        "POST",
        "/users/register",
        {
            "email": "a@example.com",
            "password": "x",
            "verification_url": "https://evil.example.com/",
        },
        token="",
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_registration_is_forbidden_unless_it_is_switched_on(client: Client) -> None:
    status, body = await call(
        client, "POST", "/users/register", {"email": "a@example.com", "password": "x"}, token=""
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_an_invited_user_sets_a_password_and_signs_in(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    inbox, _ = smtp
    role = await ok(mail_client, "POST", "/roles", {"name": "partners"})
    status, _ = await call(
        mail_client,
        "POST",
        "/users/invite",
        {"email": "partner@example.com", "role": role["id"], "invite_url": INVITE_URL},
    )
    assert status == 204
    await delivered(mail_client)
    [mail] = inbox.to("partner@example.com")
    token = token_in(mail, INVITE_URL)
    status, _ = await call(
        mail_client,
        "POST",
        "/users/invite/accept",
        {"token": token, "password": "chosen-pw-1"},
        token="",
    )
    assert status == 204
    assert (await login(mail_client, "partner@example.com", "chosen-pw-1"))[0] == 200
    again, _ = await call(
        mail_client, "POST", "/users/invite/accept", {"token": token, "password": "other"}, token=""
    )
    assert again == 400


async def test_inviting_needs_create_on_users(mail_client: Client) -> None:
    user = await user_with(mail_client)
    role = await ok(mail_client, "POST", "/roles", {"name": "r"})
    status, body = await call(
        mail_client,
        "POST",
        "/users/invite",
        {"email": "x@example.com", "role": role["id"]},
        token=user.token,
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_a_password_reset_link_works_once(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    inbox, _ = smtp
    user = await user_with(mail_client)
    status, _ = await call(
        mail_client,
        "POST",
        "/auth/password/request",
        {"email": user.email, "reset_url": RESET_URL},
        token="",
    )
    assert status == 204
    await delivered(mail_client)
    token = token_in(inbox.to(user.email)[0], RESET_URL)
    status, _ = await call(
        mail_client,
        "POST",
        "/auth/password/reset",
        {"token": token, "password": "brand-new-1"},
        token="",
    )
    assert status == 204
    assert (await login(mail_client, user.email, "brand-new-1"))[0] == 200
    assert (await login(mail_client, user.email, user.password))[0] == 401
    status, body = await call(
        mail_client,
        "POST",
        "/auth/password/reset",
        {"token": token, "password": "again-2"},
        token="",
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_a_reset_for_an_unknown_address_answers_alike_and_sends_nothing(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    status, _ = await call(
        mail_client, "POST", "/auth/password/request", {"email": "nobody@example.com"}, token=""
    )
    assert status == 204
    await delivered(mail_client)
    assert smtp[0].messages == []


async def test_a_reset_url_outside_the_allow_list_is_refused(mail_client: Client) -> None:
    status, body = await call(
        mail_client,
        "POST",
        "/auth/password/request",
        {"email": "admin@example.com", "reset_url": "https://evil.example.com"},
        token="",
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_a_new_notification_is_mailed_to_its_recipient(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    user = await user_with(mail_client)
    note = await ok(
        mail_client,
        "POST",
        "/notifications",
        {"recipient": user.id, "subject": "Lot 42 shipped", "message": "See the events."},
    )
    await ok(mail_client, "PATCH", f"/notifications/{note['id']}", {"status": "archived"})
    await delivered(mail_client)
    [mail] = smtp[0].to(user.email)
    assert mail["Subject"] == "Lot 42 shipped"
    assert "See the events." in mail.get_payload(decode=True).decode()  # type: ignore[union-attr]


async def test_no_mail_goes_to_a_recipient_who_turned_notifications_off(
    mail_client: Client, smtp: tuple[Inbox, int]
) -> None:
    user = await user_with(mail_client)
    await ok(mail_client, "PATCH", f"/users/{user.id}", {"email_notifications": False})
    await ok(mail_client, "POST", "/notifications", {"recipient": user.id, "subject": "quiet"})
    await delivered(mail_client)
    assert smtp[0].to(user.email) == []


@pytest.fixture
async def unreachable_smtp_client(database_url: str, aiohttp_client: Any) -> AsyncIterator[Client]:
    async for client in _client(
        aiohttp_client, database_url, email_smtp_host="127.0.0.1", email_smtp_port=free_port()
    ):
        client.app[TRACEPOINT].access.outbox.retry_delays = (0.01,)
        yield client


async def test_a_mail_that_cannot_be_sent_does_not_fail_the_request(
    unreachable_smtp_client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    me = await ok(unreachable_smtp_client, "GET", "/users/me")
    note = await ok(
        unreachable_smtp_client, "POST", "/notifications", {"recipient": me["id"], "subject": "s"}
    )
    assert note["subject"] == "s"
    await delivered(unreachable_smtp_client)
    assert "giving up on mail" in caplog.text


async def test_without_smtp_mail_is_written_as_eml_files(
    database_url: str, aiohttp_client: Any, tmp_path: Path
) -> None:
    async for client in _client(aiohttp_client, database_url, mail_dir=str(tmp_path / "mail")):
        me = await ok(client, "GET", "/users/me")
        await ok(client, "POST", "/notifications", {"recipient": me["id"], "subject": "on disk"})
        await delivered(client)
    [file] = list((tmp_path / "mail").glob("*.eml"))
    assert message_from_bytes(file.read_bytes())["Subject"] == "on disk"


async def enable_tfa(client: Client, token: str, password: str) -> str:
    generated = await ok(
        client, "POST", "/users/me/tfa/generate", {"password": password}, token=token
    )
    assert generated["otpauth_url"].startswith("otpauth://totp/")
    secret = generated["secret"]
    status, _ = await call(
        client,
        "POST",
        "/users/me/tfa/enable",
        {"secret": secret, "otp": pyotp.TOTP(secret).now()},
        token=token,
    )
    assert status == 204
    return str(secret)


async def test_with_tfa_enabled_a_login_needs_the_current_code(client: Client) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    status, body = await login(client, user.email, user.password)
    assert (status, code(body)) == (401, "INVALID_OTP")
    status, body = await login(
        client,
        user.email,
        user.password,
        otp="000000" if pyotp.TOTP(secret).now() != "000000" else "111111",
    )
    assert (status, code(body)) == (401, "INVALID_OTP")
    status, _ = await login(client, user.email, user.password, otp=pyotp.TOTP(secret).now())
    assert status == 200


async def test_tfa_generate_checks_the_password(client: Client) -> None:
    user = await user_with(client)
    status, body = await call(
        client, "POST", "/users/me/tfa/generate", {"password": "wrong"}, token=user.token
    )
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")


async def test_tfa_enable_refuses_a_wrong_code(client: Client) -> None:
    user = await user_with(client)
    generated = await ok(
        client, "POST", "/users/me/tfa/generate", {"password": user.password}, token=user.token
    )
    status, body = await call(
        client,
        "POST",
        "/users/me/tfa/enable",
        {"secret": generated["secret"], "otp": "12"},
        token=user.token,
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_tfa_can_be_disabled_with_a_current_code(client: Client) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    status, _ = await call(
        client, "POST", "/users/me/tfa/disable", {"otp": pyotp.TOTP(secret).now()}, token=user.token
    )
    assert status == 204
    assert (await login(client, user.email, user.password))[0] == 200


async def test_the_tfa_secret_never_leaves_the_service(client: Client) -> None:
    user = await user_with(client)
    await enable_tfa(client, user.token, user.password)
    record = await ok(client, "GET", f"/users/{user.id}")
    assert record["tfa_secret"] == "**********"


async def test_an_enforcing_policy_allows_only_tfa_setup_until_tfa_is_on(client: Client) -> None:
    user = await user_with(
        client, {"collection": "folders", "action": "read", "fields": ["*"]}, enforce_tfa=True
    )
    status, body = await call(client, "GET", "/folders", token=user.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    assert (await call(client, "GET", "/users/me", token=user.token))[0] == 200
    secret = await enable_tfa(client, user.token, user.password)
    assert (await call(client, "GET", "/folders", token=user.token))[0] == 200
    status, body = await login(client, user.email, user.password)
    assert (status, code(body)) == (401, "INVALID_OTP")
    assert (await login(client, user.email, user.password, otp=pyotp.TOTP(secret).now()))[0] == 200


async def test_an_admin_can_turn_off_a_users_tfa(client: Client) -> None:
    user = await user_with(client)
    await enable_tfa(client, user.token, user.password)
    status, _ = await call(client, "POST", f"/users/{user.id}/tfa/disable", {})
    assert status == 204
    assert (await login(client, user.email, user.password))[0] == 200


async def test_only_an_admin_can_turn_off_someone_elses_tfa(client: Client) -> None:
    user = await user_with(client)
    other = await user_with(client)
    status, body = await call(
        client, "POST", f"/users/{other.id}/tfa/disable", {}, token=user.token
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_password_reset_requests_from_one_address_are_limited(mail_client: Client) -> None:
    statuses = [
        (
            await call(
                mail_client, "POST", "/auth/password/request", {"email": "a@example.com"}, token=""
            )
        )[0]
        for _ in range(6)
    ]
    assert statuses == [204] * 5 + [429]


async def test_a_one_time_password_signs_in_once(client: Client) -> None:
    user = await user_with(client)
    secret = await enable_tfa(client, user.token, user.password)
    code_now = pyotp.TOTP(secret).now()
    assert (await login(client, user.email, user.password, otp=code_now))[0] == 200
    status, body = await login(client, user.email, user.password, otp=code_now)
    assert (status, code(body)) == (401, "INVALID_OTP")
