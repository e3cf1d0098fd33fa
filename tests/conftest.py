"""Shared fixtures: every service test runs on SQLite and on PostgreSQL.

PostgreSQL tests use a database created for this run and a fresh schema per test, so runs
never see each other's data. Where no server is reachable they are skipped, except in CI
(`CI` set to a true value: 1, true, yes or on, in any case), where they fail.
"""

import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from aiohttp.test_utils import TestClient

from api.app import create_app
from application.runtime import Tracepoint
from infrastructure.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures"
ADMIN_TOKEN = "test-admin-token-" + secrets.token_hex(8)
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
SERVER_URL = os.environ.get(
    "TRACEPOINT_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
#: Password hashes as cheap as Argon2id allows: hashing at the production cost (see
#: tests/access/test_authentication.py) would take most of the suite's time.
CHEAP_PASSWORD_HASHES = {"password_hash_time_cost": 1, "password_hash_memory_kib": 32}


def is_true(value: str | None) -> bool:
    """Whether an environment variable says yes: 1, true, yes or on, in any case."""
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _with_database(url: str, dbname: str, query: str = "") -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, query, ""))


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A PostgreSQL database of this test run, dropped at the end."""
    try:
        admin = psycopg.connect(SERVER_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if is_true(os.environ.get("CI")):
            pytest.fail(f"PostgreSQL is mandatory in CI and unreachable at {SERVER_URL}: {exc}")
        pytest.skip(f"no PostgreSQL at {SERVER_URL}")
    name = f"tracepoint_test_{os.getpid()}_{secrets.token_hex(4)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(SERVER_URL, name)
    finally:
        with psycopg.connect(SERVER_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new schema in the run's PostgreSQL DB."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'tracepoint.db'}"
        return
    database: str = request.getfixturevalue("postgres_database")
    schema = "t_" + secrets.token_hex(6)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield database + f"?schema={schema}"
    finally:
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def make_settings(database_url: str, **overrides: Any) -> Settings:
    """Settings for a test service: fixed admin credentials, fast polling, cheap hashes."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "secret": "test-secret",
        "admin_email": "admin@example.com",
        "admin_password": "correct horse battery staple",
        "admin_token": ADMIN_TOKEN,
        "projection_poll_interval": 0.05,
        # Starting and stopping worker processes for every test costs more than all the
        # analysis they would do; tests/api/test_capture_workers.py covers them.
        "capture_workers": 0,
        # Tests run code jobs and reservations when they choose (`work_on_codes`);
        # tests/codes/test_background.py keeps the timer.
        "background_work": False,
        # Test partners and webhook receivers listen on the loopback interface.
        "outbound_allow_list": "127.0.0.0/8",
        **CHEAP_PASSWORD_HASHES,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings of the service under test."""
    return make_settings(database_url)


@pytest.fixture
async def tracepoint(settings: Settings) -> AsyncIterator[Tracepoint]:
    """A started service on the test database."""
    service = Tracepoint(settings)
    await service.start()
    try:
        yield service
    finally:
        await service.stop()


@pytest.fixture
async def client(tracepoint: Tracepoint, aiohttp_client: Any) -> TestClient[Any, Any]:
    """An HTTP client for the service under test."""
    result: TestClient[Any, Any] = await aiohttp_client(
        create_app(tracepoint, manage_lifecycle=False)
    )
    return result
