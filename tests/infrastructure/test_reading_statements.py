"""A read that sets nothing for its transaction (`Database.reading(transaction=False)`)
runs each statement as a transaction of its own on PostgreSQL, without BEGIN and COMMIT,
and hands its connection back to the pool as it was lent."""

from collections.abc import Iterator

import psycopg
import pytest

from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl

pytestmark = pytest.mark.postgres

#: The transaction a statement ran in (one is assigned on asking).
XACT = "SELECT pg_current_xact_id()::text"


@pytest.fixture
def database(postgres_database: str) -> Iterator[Database]:
    """One pooled connection, so every read and transaction reuses it."""
    opened = Database(DatabaseUrl.parse(postgres_database), pool_size=1)
    try:
        yield opened
    finally:
        opened.close()


def test_each_statement_of_a_read_without_transaction_is_a_transaction_of_its_own(
    database: Database,
) -> None:
    with database.reading(transaction=False) as conn:
        assert conn.fetchval(XACT) != conn.fetchval(XACT)


def test_a_read_in_a_transaction_runs_its_statements_in_one(database: Database) -> None:
    with database.reading() as conn:
        assert conn.fetchval(XACT) == conn.fetchval(XACT)


def test_the_connection_of_a_read_without_transaction_goes_back_as_it_came(
    database: Database,
) -> None:
    with database.reading(transaction=False) as conn:
        conn.fetchval("SELECT 1")
    with database.transaction() as conn:
        assert conn.fetchval(XACT) == conn.fetchval(XACT)


def test_a_failed_read_without_transaction_gives_its_connection_back_too(
    database: Database,
) -> None:
    with (
        pytest.raises(psycopg.errors.UndefinedTable),
        database.reading(transaction=False) as conn,
    ):
        conn.fetchval("SELECT 1 FROM no_such_table")
    with database.transaction() as conn:
        assert conn.fetchval(XACT) == conn.fetchval(XACT)
