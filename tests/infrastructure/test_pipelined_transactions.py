"""A pipelined transaction (PostgreSQL sends its statements without waiting for each answer;
SQLite runs them as any other) commits all or nothing, and says which statement failed."""

import sqlite3
from collections.abc import Iterator

import psycopg
import pytest

from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl

UNIQUE_VIOLATION = (sqlite3.IntegrityError, psycopg.errors.UniqueViolation)


@pytest.fixture
def rows(database_url: str) -> Iterator[Database]:
    """A database with a table `rows`; one connection, so every transaction reuses it."""
    database = Database(DatabaseUrl.parse(database_url), pool_size=1)
    try:
        with database.transaction() as conn:
            conn.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, note TEXT)")
        yield database
    finally:
        database.close()


def ids(database: Database) -> list[int]:
    with database.transaction(write=False) as conn:
        return [int(row[0]) for row in conn.fetchall("SELECT id FROM rows ORDER BY id")]


def insert(
    database: Database, *keys: int, sync: bool = False, then_raise: bool = False, **options: bool
) -> None:
    """Insert a row of each key in one transaction (pipelined unless `options` say not),
    syncing at the end of the block if `sync`, raising at its end if `then_raise`."""
    with database.transaction(**{"pipelined": True, **options}) as conn:
        for key in keys:
            conn.send("INSERT INTO rows VALUES (?, ?)", (key, "note"))
        if sync:
            conn.sync()
        if then_raise:
            raise RuntimeError("the caller changed its mind")


def test_a_pipelined_transaction_commits_what_it_sent(rows: Database) -> None:
    with rows.transaction(pipelined=True) as conn:
        conn.send("INSERT INTO rows VALUES (?, ?)", (1, "a"))
        conn.send("INSERT INTO rows VALUES (?, ?)", (2, "b"))
        assert conn.execute("UPDATE rows SET note = ? WHERE id > ?", ("c", 0)) == 2
        assert conn.fetchval("SELECT COUNT(*) FROM rows") == 2
    assert ids(rows) == [1, 2]


def test_a_counted_statement_answers_its_own_count_after_later_statements(
    rows: Database,
) -> None:
    # Statements whose answers nobody reads share a cursor; a counted one must not.
    with rows.transaction(pipelined=True) as conn:
        conn.send("INSERT INTO rows VALUES (?, ?)", (1, "a"))
        conn.send("INSERT INTO rows VALUES (?, ?)", (2, "b"))
        counted = conn.send_counted("UPDATE rows SET note = ? WHERE id > ?", ("c", 0))
        conn.send("INSERT INTO rows VALUES (?, ?)", (3, "d"))
        conn.sync()
        assert counted() == 2


def test_a_pipelined_transaction_that_raises_writes_nothing(rows: Database) -> None:
    with pytest.raises(RuntimeError):
        insert(rows, 1, then_raise=True)
    assert ids(rows) == []


def test_a_failed_statement_is_raised_by_the_next_sync(rows: Database) -> None:
    with pytest.raises(UNIQUE_VIOLATION):
        insert(rows, 1, 1, sync=True)
    assert ids(rows) == []


def test_a_failed_statement_left_unsynced_fails_the_commit_and_writes_nothing(
    rows: Database,
) -> None:
    with pytest.raises(UNIQUE_VIOLATION):
        insert(rows, 1, 1)
    assert ids(rows) == []


def test_rolling_back_to_a_savepoint_after_a_failed_statement_keeps_what_came_before(
    rows: Database,
) -> None:
    with rows.transaction(pipelined=True) as conn:
        conn.send("INSERT INTO rows VALUES (?, ?)", (1, "kept"))
        conn.send("SAVEPOINT attempt")
        conn.send("INSERT INTO rows VALUES (?, ?)", (2, "undone"))
        try:
            conn.send("INSERT INTO rows VALUES (?, ?)", (1, "again"))
            conn.fetchall("SELECT id FROM rows")  # pipelined, the answer raises
        except UNIQUE_VIOLATION:
            conn.rollback_to("attempt")
        else:
            pytest.fail("the duplicate was not refused")
        conn.send("INSERT INTO rows VALUES (?, ?)", (3, "after"))
    assert ids(rows) == [1, 3]


def test_a_pipeline_inserts_more_rows_than_one_statement_takes_parameters(
    rows: Database,
) -> None:
    many = [(i, "x") for i in range(40_000)]  # 80,000 parameters
    with rows.transaction(pipelined=True) as conn:
        conn.insert_many("rows", ("id", "note"), many)
    assert ids(rows) == list(range(40_000))


def test_the_connection_of_a_failed_pipelined_transaction_serves_the_next_ones(
    rows: Database,
) -> None:
    with pytest.raises(UNIQUE_VIOLATION):
        insert(rows, 1, 1)
    insert(rows, 5)
    with pytest.raises(RuntimeError):
        insert(rows, 6, then_raise=True, pipelined=False)
    assert ids(rows) == [5]


def test_a_commit_that_fails_raises_and_writes_nothing(rows: Database) -> None:
    # The COMMIT is answered with the sync that ends the pipeline: its error still comes.
    if rows.dialect.name != "postgresql":
        pytest.skip("a constraint checked at commit is PostgreSQL's")
    with rows.transaction() as conn:
        conn.execute(
            "CREATE TABLE checked_at_commit (id INTEGER, UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)"
        )
    with pytest.raises(psycopg.errors.UniqueViolation):
        _insert_twice_checked_at_commit(rows)
    assert ids(rows) == []
    insert(rows, 2)
    assert ids(rows) == [2]


def _insert_twice_checked_at_commit(database: Database) -> None:
    with database.transaction(pipelined=True) as conn:
        conn.send("INSERT INTO rows VALUES (?, ?)", (1, "a"))
        conn.send("INSERT INTO checked_at_commit VALUES (?)", (7,))
        conn.send("INSERT INTO checked_at_commit VALUES (?)", (7,))
        conn.sync()  # both inserts are accepted; the commit is what fails


def test_a_pipeline_inserts_rows_with_every_value_and_every_null_as_given(
    rows: Database,
) -> None:
    with rows.transaction() as conn:
        conn.execute(
            "CREATE TABLE typed (id BIGINT, small SMALLINT, note TEXT, amount DOUBLE PRECISION,"
            " count INTEGER, never TEXT)"
        )
    given = [
        (i, i % 7 if i % 3 else None, None if i % 5 == 0 else f"n{i}", i / 4, 2**31 - 1 - i, None)
        for i in range(100)
    ]
    with rows.transaction(pipelined=True) as conn:
        conn.insert_many("typed", ("id", "small", "note", "amount", "count", "never"), given)
    with rows.transaction(write=False) as conn:
        assert [tuple(r) for r in conn.fetchall("SELECT * FROM typed ORDER BY id")] == given
