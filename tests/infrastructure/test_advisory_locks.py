"""Locks across processes (PostgreSQL advisory locks) belong to the schema whose tables
they guard: services in other schemas of one database (`?schema=`) neither wait for
them nor skip their own background work while another holds one."""

import hashlib
import secrets
from collections.abc import Iterator

import psycopg
import pytest

from infrastructure.connection import lock_key
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl

pytestmark = pytest.mark.postgres


@pytest.fixture
def schemas(postgres_database: str) -> Iterator[tuple[str, str]]:
    """Two schemas of one database."""
    names = ("t_" + secrets.token_hex(6), "t_" + secrets.token_hex(6))
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE SCHEMA "{name}"')
    yield names
    with psycopg.connect(postgres_database, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


@pytest.fixture
def services(postgres_database: str, schemas: tuple[str, str]) -> Iterator[list[Database]]:
    """Three processes' databases: two on the first schema, one on the second."""
    urls = [f"{postgres_database}?schema={name}" for name in (schemas[0], *schemas)]
    opened = [Database(DatabaseUrl.parse(url), pool_size=2) for url in urls]
    yield opened
    for database in opened:
        database.close()


def test_a_lock_held_for_one_schema_is_free_for_another(services: list[Database]) -> None:
    first, _, other_schema = services
    with first.exclusive("code-pools"), other_schema.try_exclusive("code-pools") as mine:
        assert mine


def test_a_lock_held_for_a_schema_is_held_for_every_process_of_it(
    services: list[Database],
) -> None:
    first, same_schema, _ = services
    with first.exclusive("code-pools"), same_schema.try_exclusive("code-pools") as mine:
        assert not mine


def test_a_transactions_lock_does_not_make_another_schemas_transaction_wait(
    services: list[Database],
) -> None:
    first, same_schema, other_schema = services
    with first.transaction() as holding:
        holding.lock("locks:purge")
        with other_schema.transaction() as other:
            other.send("SET LOCAL lock_timeout = '1s'")
            other.lock("locks:purge")
        with same_schema.transaction() as same:
            same.send("SET LOCAL lock_timeout = '100ms'")
            with pytest.raises(psycopg.errors.LockNotAvailable):
                same.lock("locks:purge")


def test_the_public_schemas_locks_keep_the_keys_of_the_names_alone() -> None:
    # A process of the release before schemas scoped the locks takes turns with this one.
    assert lock_key("tracepoint-schema") == int.from_bytes(
        hashlib.sha256(b"tracepoint-schema").digest()[:8], "big", signed=True
    )
