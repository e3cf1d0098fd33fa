"""A start deletes the bootstrap admin's credentials file once it has done its work
elsewhere: the admin signed in through another process, or its password was changed."""

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from api.service.app import create_app
from application.access.bootstrap import BOOTSTRAP_ADMIN_ID
from application.service.runtime import Tracepoint
from infrastructure.credentials_file import CredentialsFile
from tests.conftest import make_settings

Started = Callable[[Path], Any]


@pytest.fixture
def start(database_url: str) -> Callable[[Path], Any]:
    """`async with start(file) as service`: a service that keeps its credentials in `file`."""

    @asynccontextmanager
    async def started(file: Path) -> AsyncIterator[Tracepoint]:
        settings = make_settings(
            database_url,
            admin_email=None,
            admin_password=None,
            admin_token=None,
            bootstrap_credentials_file=str(file),
        )
        service = Tracepoint(settings)
        await service.start()
        try:
            yield service
        finally:
            await service.stop()

    return started


async def on_another_host(
    start: Started, tmp_path: Path, aiohttp_client: Any, act: Callable[[Any], Awaitable[None]]
) -> None:
    """Run `act` with an HTTP client of a second process, whose file is elsewhere."""
    async with start(tmp_path / "other-host" / "bootstrap-admin.txt") as other:
        await act(await aiohttp_client(create_app(other, manage_lifecycle=False)))


async def test_a_start_deletes_the_file_of_an_admin_who_signed_in_through_another_process(
    start: Started, tmp_path: Path, aiohttp_client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "var" / "bootstrap-admin.txt"
    async with start(file):
        credentials = CredentialsFile(file).read()

    async def sign_in(client: Any) -> None:
        login = {"email": credentials["email"], "password": credentials["password"]}
        response = await client.post("/auth/login", json=login)
        assert response.status == 200, await response.text()

    await on_another_host(start, tmp_path, aiohttp_client, sign_in)
    assert file.exists()
    with caplog.at_level(logging.INFO):
        async with start(file):
            pass
    assert not file.exists()
    assert [r.getMessage() for r in caplog.records if str(file) in r.getMessage()] == [
        f"deleted {file}: the bootstrap admin has signed in or changed its password"
    ]


async def test_a_start_deletes_the_file_once_the_admins_password_was_changed(
    start: Started, tmp_path: Path, aiohttp_client: Any
) -> None:
    file = tmp_path / "var" / "bootstrap-admin.txt"
    async with start(file):
        token = CredentialsFile(file).read()["static token"]

    async def change_password(client: Any) -> None:
        response = await client.patch(
            f"/users/{BOOTSTRAP_ADMIN_ID}",
            json={"password": "a new password of the admin's own"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status == 200, await response.text()

    await on_another_host(start, tmp_path, aiohttp_client, change_password)
    async with start(file):
        assert not file.exists()


async def test_a_start_keeps_the_file_while_the_admin_has_not_signed_in(
    start: Started, tmp_path: Path
) -> None:
    file = tmp_path / "var" / "bootstrap-admin.txt"
    async with start(file):
        pass
    async with start(file) as again:
        assert file.exists()
        assert again.first_credentials.waiting()
