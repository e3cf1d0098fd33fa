"""Shared fixtures: every service test runs on SQLite and on PostgreSQL.

PostgreSQL tests use databases created for this run (dropped at its end) and a fresh
schema per test, or, where they start the service, a schema emptied and checked after an
earlier test (see `tests/databases.py`), so runs never see each other's data. Where no
server is reachable they are skipped, except in CI (`CI` set to a true value: 1, true,
yes or on, in any case), where they fail.
"""

import contextlib
import os
import secrets
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from aiohttp import web_app
from aiohttp.test_utils import TestClient

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from infrastructure.settings import Settings
from tests.databases import (
    PostgresDatabases,
    SQLiteDatabases,
    create_database,
    drop_databases,
    with_database,
)
from tests.logging_kept import logging_kept

pytest_plugins = ("tests.hung_tests",)

FIXTURES = Path(__file__).parent / "fixtures"
ADMIN_TOKEN = "test-admin-token-" + secrets.token_hex(8)
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
#: Asks for events as they were captured. Without it answers write EPCs as GS1 Digital
#: Link (the binding's default), and tests of what is stored compare with what they sent.
NEVER_TRANSLATES = {"GS1-EPC-Format": "Never_Translates"}
AS_CAPTURED = {**AUTH, **NEVER_TRANSLATES}
SERVER_URL = os.environ.get(
    "TRACEPOINT_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
#: Names this test run (set by the first process; xdist's workers inherit it).
_RUN = "TRACEPOINT_TEST_RUN"
#: Password hashes as cheap as Argon2id allows: hashing at the production cost (see
#: tests/access/test_authentication.py) would take most of the suite's time.
CHEAP_PASSWORD_HASHES = {"password_hash_time_cost": 1, "password_hash_memory_kib": 32}


def is_true(value: str | None) -> bool:
    """Whether an environment variable says yes: 1, true, yes or on, in any case."""
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _require_postgres() -> None:
    """Skip the test where no PostgreSQL answers, or fail it in CI."""
    try:
        psycopg.connect(SERVER_URL, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        if is_true(os.environ.get("CI")):
            pytest.fail(f"PostgreSQL is mandatory in CI and unreachable at {SERVER_URL}: {exc}")
        pytest.skip(f"no PostgreSQL at {SERVER_URL}")


def _database_prefix() -> str:
    """The start of the names of this run's databases (all its workers')."""
    return f"tracepoint_test_run_{os.environ[_RUN]}_"


def _database_name(use: str) -> str:
    """The name of this worker's database for one use."""
    return f"{_database_prefix()}{os.environ.get('PYTEST_XDIST_WORKER', 'main')}_{use}"


def pytest_configure(config: pytest.Config) -> None:
    """Name the run, so that its workers' databases can be told from other runs'."""
    # The workers, started later, inherit it.
    os.environ.setdefault(_RUN, secrets.token_hex(4))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Name each test of an `xdist_group` module after its group, so that `--dist loadgroup`
    runs the module in one worker: pytest-xdist 3.8 writes the name where pytest 9 no longer
    reads it (`_nodeid`; pytest 9 keeps `_id`), and the groups were silently ignored."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        groups = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group") if m.args})
        if groups and not item.nodeid.endswith("@" + "_".join(groups)):
            named = f"{item.nodeid}@{'_'.join(groups)}"
            item._id = type(item._id).parse(named)  # type: ignore[attr-defined]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Let the services of earlier tests go."""
    # aiohttp caches each handler's middleware chain by (handler, applications) in an
    # lru_cache of 1,024 entries: in a process that makes an application per test it kept
    # hundreds of started services alive (GiBs a worker) and slowed every later test.
    web_app._cached_build_middleware.cache_clear()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Drop the run's databases once every worker is done (dropping them together is
    quicker than one at a time: see `drop_databases`)."""
    if hasattr(session.config, "workerinput"):
        return
    with contextlib.suppress(psycopg.OperationalError):  # no server: no database either
        drop_databases(SERVER_URL, _database_prefix())


@pytest.fixture(autouse=True)
def _logging_as_it_was() -> Iterator[None]:
    """A test that sets logging up as the service does (`configure_logging`: `serve`,
    `replay`) leaves it as it found it."""
    with logging_kept():
        yield


def run_database(use: str) -> str:
    """The URL of a new PostgreSQL database of this run, dropped with its others at its
    end (all at once: each drop waits for a checkpoint, and drops that wait together
    share one, see `drop_databases`)."""
    _require_postgres()
    name = f"{_database_name(use)}_{secrets.token_hex(4)}"
    create_database(SERVER_URL, name)
    return with_database(SERVER_URL, name)


@pytest.fixture(scope="session")
def postgres_database() -> str:
    """A PostgreSQL database of this test run and worker, dropped at the end of the run."""
    _require_postgres()
    name = _database_name("schemas")
    create_database(SERVER_URL, name)
    return with_database(SERVER_URL, name)


@pytest.fixture(scope="session")
def postgres_service_databases() -> Iterator[PostgresDatabases]:
    """This worker's PostgreSQL schemas for started services, in a database of their own
    (dropped at the end of the run)."""
    _require_postgres()
    databases = PostgresDatabases(SERVER_URL, _database_name("services"))
    try:
        yield databases
    finally:
        databases.close()


@pytest.fixture(scope="session")
def sqlite_service_databases(tmp_path_factory: pytest.TempPathFactory) -> SQLiteDatabases:
    """This worker's SQLite templates for started services."""
    return SQLiteDatabases(tmp_path_factory.mktemp("templates"))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new schema in the run's PostgreSQL DB.

    Where the test starts the service (the `tracepoint` fixture, or its own services
    through `service_tables`), the database is made when it starts, with the tables it
    makes ready and empty (see `tests/databases.py`).
    """
    starts_service = "service_tables" in request.fixturenames
    databases: SQLiteDatabases | PostgresDatabases
    if request.param == "sqlite":
        path = tmp_path / "tracepoint.db"
        if not starts_service:
            yield f"sqlite:///{path}"
            return
        databases = request.getfixturevalue("sqlite_service_databases")
        url = databases.reserve(path)
        try:
            yield url
        finally:
            databases.release(url)
        return
    if starts_service:
        databases = request.getfixturevalue("postgres_service_databases")
        url = databases.reserve()
        try:
            yield url
        finally:
            databases.release(url)
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


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """The read-model database of `database_url`, closed after the test."""
    database = Database(DatabaseUrl.parse(database_url))
    try:
        yield database
    finally:
        database.close()


def make_settings(database_url: str, **overrides: Any) -> Settings:
    """Settings for a test service: fixed admin credentials, fast polling, cheap hashes;
    these values alone, whatever the environment the tests run in sets."""
    values: dict[str, Any] = {
        "database_url": database_url,
        "secret": "test-secret",
        "admin_email": "admin@example.com",
        "admin_password": "correct horse battery staple",
        "admin_token": ADMIN_TOKEN,
        "projection_poll_interval": 0.05,
        # Starting and stopping worker processes for every test costs more than all the
        # analysis they would do; tests/epcis/test_capture_workers.py covers them.
        "capture_workers": 0,
        # Tests that start workers note them outside the repository.
        "run_dir": os.path.join(tempfile.gettempdir(), "tracepoint-tests-run"),
        # Tests run code jobs and reservations when they choose (`codes.work.run`);
        # tests/codes/test_background.py keeps the timer.
        "background_work": False,
        # Test partners and webhook receivers listen on the loopback interface.
        "outbound_allow_list": "127.0.0.0/8",
        # No sign-in provider of the environment the tests run in.
        "auth": {},
        **CHEAP_PASSWORD_HASHES,
    }
    values.update(overrides)
    # Validated as `Settings(**values)` validates them, without first reading every field
    # from the environment and a .env file (pydantic-settings' sources): that took ~4 ms
    # of each test's set-up, and let a developer's TRACEPOINT_* variables into the tests.
    settings = Settings.__new__(Settings)
    Settings.__pydantic_validator__.validate_python(values, self_instance=settings)
    return settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings of the service under test."""
    return make_settings(database_url)


@pytest.fixture
def service_clock() -> Callable[[], float]:
    """The time the service under test reads; a test module may give its own."""
    return time.time


@pytest.fixture
def service_tables(request: pytest.FixtureRequest) -> Callable[[Settings], Settings]:
    """Makes the test database with the tables a service of the given settings makes,
    ready and empty (tests/databases.py), and returns the settings: for a test that
    builds its services itself, before the first."""

    def prepare(settings: Settings) -> Settings:
        backend = "sqlite" if settings.database_url.startswith("sqlite") else "postgres"
        databases: SQLiteDatabases | PostgresDatabases
        databases = request.getfixturevalue(f"{backend}_service_databases")
        databases.prepare(settings)
        return settings

    return prepare


@pytest.fixture
async def tracepoint(
    settings: Settings,
    service_tables: Callable[[Settings], Settings],
    service_clock: Callable[[], float],
) -> AsyncIterator[Tracepoint]:
    """A started service on the test database."""
    # The test's database is made now, from the template of these settings' tables.
    service = Tracepoint(service_tables(settings), clock=service_clock)
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
