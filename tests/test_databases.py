"""The databases the service under test gets (`tests/databases.py`): new for every test."""

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from application.service.runtime import Tracepoint
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from tests.conftest import make_settings
from tests.databases import BOOKKEEPING, REFERENCE_TABLES, PostgresDatabases, SQLiteDatabases


def _server_side(url: str) -> tuple[str, str]:
    """The URL of a schema's database, and the schema."""
    parts = urlsplit(url)
    return urlunsplit((*parts[:3], "", "")), parts.query.removeprefix("schema=")


def _schema_oid(url: str) -> int:
    database, schema = _server_side(url)
    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT %s::text::regnamespace::oid", (schema,)).fetchone()
    assert row is not None
    return int(row[0])


def _rows_and_sequences(url: str) -> tuple[int, list[object]]:
    """Rows in the schema's tables but the runner's bookkeeping and the reference lists,
    and its sequences' last values."""
    database, schema = _server_side(url)
    with psycopg.connect(database) as conn:
        tables = conn.execute(
            "SELECT format('%%I.%%I', schemaname, tablename) FROM pg_tables"
            " WHERE schemaname = %s AND NOT tablename = ANY(%s)",
            (schema, list(frozenset(BOOKKEEPING) | REFERENCE_TABLES)),
        ).fetchall()
        assert len(tables) > 40
        rows = 0
        for (table,) in tables:
            counted = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert counted is not None
            rows += int(counted[0])
        sequences = conn.execute(
            "SELECT last_value FROM pg_sequences WHERE schemaname = %s", (schema,)
        ).fetchall()
    return rows, [value for (value,) in sequences]


def _positions(url: str) -> dict[str, int]:
    """The projections' positions in a schema, as the runner keeps them."""
    database, schema = _server_side(url)
    with psycopg.connect(database) as conn:
        rows = conn.execute(f'SELECT name, position FROM "{schema}".projection_positions')
        return {str(name): int(position) for name, position in rows.fetchall()}


def _prepared(databases: PostgresDatabases) -> str:
    """A schema reserved and made for a test service of the default settings: its URL."""
    url = databases.reserve()
    databases.prepare(make_settings(url))
    return url


async def _run_service(url: str) -> int:
    """Start and stop a service on `url`; the log position its start reached."""
    service = Tracepoint(make_settings(url))
    await service.start()
    try:
        return service.store.max_position()
    finally:
        await service.stop()


@pytest.mark.postgres
async def test_a_schema_is_kept_emptied_and_given_again_as_new(
    postgres_service_databases: PostgresDatabases,
) -> None:
    databases = postgres_service_databases
    first = _prepared(databases)
    reached = await _run_service(first)
    assert reached > 0
    kept = _schema_oid(first)
    databases.release(first)

    second = _prepared(databases)
    assert _schema_oid(second) == kept
    rows, sequences = _rows_and_sequences(second)
    assert (rows, set(sequences)) == (0, {None})  # the log's and the terms' numbering restart
    assert _positions(second) == dict.fromkeys(_positions(second), 0)
    # One per projection of the service.
    assert len(_positions(second)) == 9
    # The log starts again at its beginning.
    assert await _run_service(second) == reached
    databases.release(second)


def _as_the_planner_sees(url: str, table: str) -> tuple[int, int, float, int, int]:
    """A table's file, rows, tuples and pages as last counted, and planner statistics."""
    database, schema = _server_side(url)
    qualified = f'"{schema}".{table}'
    with psycopg.connect(database) as conn:
        row = conn.execute(
            f"SELECT c.relfilenode, (SELECT count(*) FROM {qualified}), c.reltuples,"
            " c.relpages, (SELECT count(*) FROM pg_statistic s WHERE s.starelid = c.oid)"
            " FROM pg_class c WHERE c.oid = %s::regclass",
            (qualified,),
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), float(row[2]), int(row[3]), int(row[4])


@pytest.mark.postgres
async def test_a_kept_table_is_emptied_as_new_in_place_when_small_and_truncated_when_not(
    postgres_service_databases: PostgresDatabases,
) -> None:
    databases = postgres_service_databases
    first = _prepared(databases)
    await _run_service(first)
    database, schema = _server_side(first)
    with psycopg.connect(database) as conn:
        conn.execute(
            f'INSERT INTO "{schema}".epcis_prefixes VALUES'
            " ('ex', 'https://example.com/', ''), ('ox', 'https://example.org/', '')"
        )
        conn.execute(
            f'INSERT INTO "{schema}".epcis_capture_accounts'
            " SELECT 'capture-' || n, 'account' FROM generate_series(1, 5000) n"
        )
        conn.execute(f'ANALYZE "{schema}".epcis_prefixes, "{schema}".epcis_capture_accounts')
    small = _as_the_planner_sees(first, "epcis_prefixes")
    large = _as_the_planner_sees(first, "epcis_capture_accounts")
    assert small[1:] == (2, 2.0, 1, 3)
    assert (large[1], large[3] >= 10) == (5000, True)
    databases.release(first)

    second = _prepared(databases)
    # No row, no statistics, never counted: to the planner, as a new table.
    assert _as_the_planner_sees(second, "epcis_prefixes") == (small[0], 0, -1.0, 0, 0)
    assert _as_the_planner_sees(second, "epcis_capture_accounts")[1:] == (0, -1.0, 0, 0)
    assert _as_the_planner_sees(second, "epcis_capture_accounts")[0] != large[0]
    databases.release(second)


def _countries(url: str) -> int:
    database, schema = _server_side(url)
    with psycopg.connect(database) as conn:
        row = conn.execute(f'SELECT count(*) FROM "{schema}".ref_country').fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgres
async def test_a_kept_schema_keeps_its_reference_lists_unless_a_test_changed_them(
    postgres_service_databases: PostgresDatabases,
) -> None:
    databases = postgres_service_databases
    first = _prepared(databases)
    listed = _countries(first)
    assert listed > 200
    databases.release(first)

    second = _prepared(databases)
    assert _countries(second) == listed
    database, schema = _server_side(second)
    with psycopg.connect(database) as conn:
        conn.execute(f"DELETE FROM \"{schema}\".ref_country WHERE code = 'FR'")
    databases.release(second)

    third = _prepared(databases)
    # Emptied, so that the service's start fills it from the list again.
    assert _countries(third) == 0
    await _run_service(third)
    assert _countries(third) == listed
    databases.release(third)


async def _released_after(databases: PostgresDatabases, *statements: str) -> int:
    """Run a service on a schema, then `statements` in it, and release it: its OID."""
    url = _prepared(databases)
    await _run_service(url)
    oid = _schema_oid(url)
    database = Database(DatabaseUrl.parse(url))
    with database.transaction() as conn:
        for statement in statements:
            conn.execute(statement)
    database.close()
    databases.release(url)
    return oid


@pytest.mark.postgres
async def test_a_schema_whose_shape_a_test_changed_is_not_kept(
    postgres_service_databases: PostgresDatabases,
) -> None:
    databases = postgres_service_databases
    changed = await _released_after(databases, "ALTER TABLE users ADD COLUMN nickname TEXT")

    second = _prepared(databases)
    assert _schema_oid(second) != changed
    await _run_service(second)
    database = Database(DatabaseUrl.parse(second))
    with database.transaction(write=False) as conn:
        columns = conn.fetchall(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = 'users'"
        )
    database.close()
    assert ("nickname",) not in columns
    databases.release(second)


@pytest.mark.postgres
async def test_a_schema_whose_shape_a_test_changed_back_is_kept(
    postgres_service_databases: PostgresDatabases,
) -> None:
    databases = postgres_service_databases
    kept = await _released_after(
        databases,
        "DROP INDEX epcis_events_event_time",
        "CREATE INDEX epcis_events_event_time ON epcis_events (event_time, position)",
    )

    second = _prepared(databases)
    assert _schema_oid(second) == kept
    databases.release(second)


async def test_a_sqlite_database_is_a_copy_of_an_empty_template(
    sqlite_service_databases: SQLiteDatabases, tmp_path: Path
) -> None:
    databases = sqlite_service_databases
    first = databases.reserve(tmp_path / "first.db")
    databases.prepare(make_settings(first))
    assert (tmp_path / "first.db").exists()
    reached = await _run_service(first)
    databases.release(first)

    second = databases.reserve(tmp_path / "second.db")
    databases.prepare(make_settings(second))
    assert await _run_service(second) == reached
    databases.release(second)
