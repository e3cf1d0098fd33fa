"""Logs captured as `tracepoint serve` writes them, from a service in the test process."""

import io
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from api.logs.access import AccessLogger
from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.logging_kept import logging_kept


@pytest.fixture
def output() -> Iterator[io.StringIO]:
    """Where the configured logs go; the logging is put back afterwards."""
    with logging_kept():
        yield io.StringIO()


def lines(output: io.StringIO) -> list[str]:
    """The lines logged so far."""
    return output.getvalue().splitlines()


async def logged_client(
    tracepoint: Tracepoint, aiohttp_client: Any, routes: dict[str, Any] | None = None
) -> TestClient[Any, Any]:
    """A client of the service served with the access logger `serve` uses; `routes` are
    extra GET handlers by path, for failures no real route makes on demand."""
    app = create_app(tracepoint, manage_lifecycle=False)
    for path, handler in (routes or {}).items():
        app.router.add_get(path, handler)
    # (TestServer drops the keyword arguments it is made with: they go to start_server.)
    server = TestServer(app)
    await server.start_server(access_log_class=AccessLogger)
    client: TestClient[Any, Any] = await aiohttp_client(server)
    return client
