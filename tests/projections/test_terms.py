"""Vocabulary values are numbered once per kind, by the database, inside the writer's
transaction (projections/epcis/terms.py)."""

import threading

import pytest

from infrastructure.database import Database
from projections.epcis.terms import (
    BIZ_LOCATION,
    BIZ_STEP,
    READ_POINT,
    SCHEMA,
    TermCache,
    term_numbers,
    term_values,
)
from projections.projection import ProjectionConflict

STEP = (BIZ_STEP, "https://ref.gs1.org/cbv/BizStep-shipping")
PLACE = "urn:epc:id:sgln:4012345.00001.0"


@pytest.fixture
def database(database: Database) -> Database:
    with database.transaction() as conn:
        for statement in SCHEMA:
            conn.execute(statement)
    return database


def numbers(database: Database, *terms: tuple[int, str]) -> dict[tuple[int, str], int]:
    with database.transaction() as conn:
        return term_numbers(conn, terms)


def test_a_value_keeps_the_number_it_was_given(database: Database) -> None:
    first = numbers(database, STEP)[STEP]
    assert numbers(database, (BIZ_STEP, "receiving"), STEP)[STEP] == first


def test_one_text_of_two_kinds_has_two_numbers(database: Database) -> None:
    found = numbers(database, (READ_POINT, PLACE), (BIZ_LOCATION, PLACE))
    assert len(set(found.values())) == 2


def test_numbers_read_back_as_their_text(database: Database) -> None:
    found = numbers(database, STEP, (READ_POINT, PLACE))
    with database.transaction(write=False) as conn:
        assert term_values(conn, [*found.values(), None]) == {
            number: value for (_, value), number in found.items()
        }


def number_and_fail(database: Database) -> None:
    with database.transaction() as conn:
        term_numbers(conn, [STEP])
        raise RuntimeError("rolled back")


def test_a_rolled_back_transaction_leaves_no_number_behind(database: Database) -> None:
    with pytest.raises(RuntimeError, match="rolled back"):
        number_and_fail(database)
    with database.transaction(write=False) as conn:
        assert conn.fetchval("SELECT COUNT(*) FROM epcis_terms") == 0


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_value_another_transaction_numbers_meanwhile_is_read_as_theirs(
    database: Database,
) -> None:
    # The other writer adds the value first and commits while this one waits on it: the
    # one statement's snapshot does not hold the row, so it is read again after.
    adding = threading.Event()
    with database.transaction() as other:
        theirs = term_numbers(other, [STEP])[STEP]
        found: dict[tuple[int, str], int] = {}
        waiting = threading.Thread(
            target=lambda: (adding.set(), found.update(numbers(database, STEP)))
        )
        waiting.start()
        adding.wait()
        waiting.join(timeout=0.5)
        assert waiting.is_alive()  # blocked on the uncommitted row
    waiting.join(timeout=10)
    assert found == {STEP: theirs}


def cached_numbers(
    database: Database, cache: TermCache, *terms: tuple[int, str]
) -> dict[tuple[int, str], int]:
    """What `cache` gives in a pipelined transaction, its confirmation answered."""
    with database.transaction(pipelined=True) as conn:
        found = cache.numbers(conn, terms)
        conn.sync()
    return found


def cache_and_fail(database: Database, cache: TermCache) -> None:
    with database.transaction(pipelined=True) as conn:
        cache.numbers(conn, [STEP])
        raise RuntimeError("rolled back")


def renumber(database: Database) -> None:
    """Build the table afresh, as a rebuild does: every value gets a new number."""
    with database.transaction() as conn:
        rows = conn.fetchall("SELECT kind, value FROM epcis_terms")
        conn.execute("DELETE FROM epcis_terms")
        conn.execute("INSERT INTO epcis_terms (kind, value) VALUES (?, ?)", (BIZ_STEP, "first"))
        conn.executemany("INSERT INTO epcis_terms (kind, value) VALUES (?, ?)", rows)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_kept_number_the_table_no_longer_holds_is_a_conflict_and_forgotten(
    database: Database,
) -> None:
    cache = TermCache()
    numbers(database, STEP)
    kept = cached_numbers(database, cache, STEP)[STEP]
    assert cached_numbers(database, cache, STEP)[STEP] == kept
    renumber(database)
    with pytest.raises(ProjectionConflict):
        cached_numbers(database, cache, STEP)
    assert cached_numbers(database, cache, STEP) == numbers(database, STEP) != {STEP: kept}


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_number_is_kept_only_once_another_transaction_committed_it(
    database: Database,
) -> None:
    cache = TermCache()
    with pytest.raises(RuntimeError, match="rolled back"):
        cache_and_fail(database, cache)
    # Kept from the rolled-back transaction, the number would fail its confirmation.
    assert cached_numbers(database, cache, STEP) == numbers(database, STEP)
