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
    term_numbers,
    term_values,
)

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
