"""The links of password-reset and invitation mails: the mail carries the token as is, the
link opens the console's page (tests/console drives it in a browser), older links lead
there, and a form posted to the API without the console's script still sets the password."""

import re
from collections.abc import AsyncIterator
from email import message_from_bytes
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from aiohttp.test_utils import TestClient

from api.platform.keys import TRACEPOINT
from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, ok, user_with
from tests.conftest import make_settings

PUBLIC_URL = "https://trace.example.com"


@pytest.fixture
async def client(database_url: str, aiohttp_client: Any, tmp_path: Path) -> AsyncIterator[Client]:
    """A service that writes its mail into a folder, with links to PUBLIC_URL."""
    service = Tracepoint(
        make_settings(database_url, mail_dir=str(tmp_path / "mail"), public_url=PUBLIC_URL)
    )
    await service.start()
    client: TestClient[Any, Any] = await aiohttp_client(create_app(service, manage_lifecycle=False))
    try:
        yield client
    finally:
        await service.stop()


async def raw_mail(client: Client, folder: Path, to: str) -> bytes:
    """The one mail sent to `to`, as written (headers and encoded body)."""
    await client.app[TRACEPOINT].access.outbox.flush()
    mails = [p.read_bytes() for p in (folder / "mail").glob("*.eml")]
    [mail] = [m for m in mails if message_from_bytes(m)["To"] == to]
    return mail


def link_in(raw: bytes, page: str) -> str:
    """The link to `page` in a raw mail, read as a person reads it."""
    match = re.search(re.escape((PUBLIC_URL + page).encode()) + rb"\?token=[^\s]+", raw)
    assert match, raw.decode()
    return match.group().decode()


async def request_reset(client: Client, email: str) -> None:
    status, _ = await call(client, "POST", "/auth/password/request", {"email": email}, token="")
    assert status == 204


async def submit(client: Client, action: str, token: str, password: str, confirm: str = "") -> Any:
    """Post the form as a browser does (form-encoded)."""
    fields = {"token": token, "password": password, "password_confirm": confirm or password}
    return await client.post(action, data=fields)


async def login_status(client: Client, email: str, password: str) -> int:
    response = await client.post("/auth/login", json={"email": email, "password": password})
    return response.status


async def test_a_reset_mail_carries_the_link_and_token_unbroken(
    client: Client, tmp_path: Path
) -> None:
    user = await user_with(client)
    await request_reset(client, user.email)
    raw = await raw_mail(client, tmp_path, user.email)
    link = link_in(raw, "/console/reset-password")
    token = link.split("?token=", 1)[1]
    assert re.fullmatch(r"[\w\-]+\.[\w\-]+\.[\w\-]+", token)  # a whole JWT, no `=3D`
    assert b"Content-Transfer-Encoding: 7bit" in raw
    assert b"=\n" not in raw
    assert b"=3D" not in raw


@pytest.mark.parametrize("page", ["reset-password", "accept-invite", "verify-email"])
async def test_a_mailed_link_opens_the_consoles_page_which_keeps_the_token_to_itself(
    client: Client, page: str
) -> None:
    response = await client.get(f"/console/{page}?token=abc")
    assert response.status == 200
    assert response.content_type == "text/html"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]


@pytest.mark.parametrize(
    ("old", "page"),
    [("/admin/reset-password", "reset-password"), ("/admin/accept-invite", "accept-invite")],
)
async def test_the_links_of_older_mails_lead_to_the_consoles_page_with_their_token(
    client: Client, old: str, page: str
) -> None:
    response = await client.get(f"{old}?token=abc.def", allow_redirects=False)
    assert response.status == 302
    assert response.headers["Cache-Control"] == "no-store"
    location = urljoin(old, response.headers["Location"])
    assert location == f"/console/{page}?token=abc.def"


async def test_a_reset_form_posted_without_the_console_sets_the_new_password_once(
    client: Client, tmp_path: Path
) -> None:
    user = await user_with(client)
    await request_reset(client, user.email)
    link = link_in(await raw_mail(client, tmp_path, user.email), "/console/reset-password")
    token = link.split("?token=", 1)[1]
    response = await submit(client, "/auth/password/reset", token, "brand-new-pw-1")
    assert response.status == 200
    assert "password is changed" in await response.text()
    assert await login_status(client, user.email, "brand-new-pw-1") == 200
    again = await submit(client, "/auth/password/reset", token, "again-pw-2")
    assert again.status == 403
    assert "expired or was used already" in await again.text()


async def test_a_reset_form_with_two_different_passwords_changes_nothing(
    client: Client, tmp_path: Path
) -> None:
    user = await user_with(client)
    await request_reset(client, user.email)
    link = link_in(await raw_mail(client, tmp_path, user.email), "/console/reset-password")
    token = link.split("?token=", 1)[1]
    response = await submit(client, "/auth/password/reset", token, "one-pw-1", "other-pw-2")
    assert response.status == 400
    assert "The two passwords differ." in await response.text()
    assert await login_status(client, user.email, user.password) == 200


async def test_the_invitation_link_carries_a_token_that_activates_the_user(
    client: Client, tmp_path: Path
) -> None:
    role = await ok(client, "POST", "/roles", {"name": "partners"})
    status, _ = await call(
        client, "POST", "/users/invite", {"email": "partner@example.com", "role": role["id"]}
    )
    assert status == 204
    mail = await raw_mail(client, tmp_path, "partner@example.com")
    token = link_in(mail, "/console/accept-invite").split("?token=", 1)[1]
    response = await submit(client, "/users/invite/accept", token, "chosen-pw-1")
    assert response.status == 200
    assert "account is active" in await response.text()
    assert await login_status(client, "partner@example.com", "chosen-pw-1") == 200


async def test_the_reset_endpoint_still_answers_json_clients_with_204(
    client: Client, tmp_path: Path
) -> None:
    user = await user_with(client)
    await request_reset(client, user.email)
    link = link_in(await raw_mail(client, tmp_path, user.email), "/console/reset-password")
    token = link.split("?token=", 1)[1]
    status, _ = await call(
        client, "POST", "/auth/password/reset", {"token": token, "password": "json-pw-1"}, token=""
    )
    assert status == 204
