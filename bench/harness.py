"""Benchmark plumbing: a throw-away database per backend and an in-process HTTP server."""

import os
import resource
import secrets
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import psycopg
from aiohttp import web

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings

SERVER_URL = os.environ.get(
    "TRACEPOINT_BENCH_DATABASE_URL",
    os.environ.get("TRACEPOINT_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"),
)
TOKEN = "bench-" + secrets.token_hex(8)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def fresh_database(backend: str) -> Iterator[str]:
    """A database URL that exists only for the duration of the block."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="tracepoint-bench-") as folder:
            yield f"sqlite:///{Path(folder) / 'bench.db'}"
        return
    name = f"tracepoint_bench_{os.getpid()}_{secrets.token_hex(3)}"
    with psycopg.connect(SERVER_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(SERVER_URL)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, "/" + name, "", ""))
    finally:
        with psycopg.connect(SERVER_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def process_cpu() -> float:
    """User and system CPU seconds of this process so far, all its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def settings(database_url: str, **overrides: Any) -> Settings:
    """Service settings for a benchmark run."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "secret": "bench",
        "admin_email": "bench@example.com",
        "admin_password": "bench-password",
        "admin_token": TOKEN,
        "capture_max_events": 20_000,
        "read_your_writes_timeout": 120.0,
    }
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def serving(service: Tracepoint) -> AsyncIterator[tuple[str, aiohttp.ClientSession]]:
    """The service on a loopback port, and a client session for it."""
    runner = web.AppRunner(create_app(service, manage_lifecycle=False))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    async with aiohttp.ClientSession(headers=AUTH) as session:
        try:
            yield f"http://127.0.0.1:{port}", session
        finally:
            await runner.cleanup()
