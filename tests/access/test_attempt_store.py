"""Sign-in attempts and failures counted in the database."""

from collections.abc import Iterator

import pytest

from infrastructure.attempt_store import AttemptStore
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl


@pytest.fixture
def store(database_url: str) -> Iterator[AttemptStore]:
    database = Database(DatabaseUrl.parse(database_url))
    try:
        yield AttemptStore(database)
    finally:
        database.close()


def test_attempts_are_recorded_up_to_the_limit(store: AttemptStore) -> None:
    assert [store.take("login", "10.0.0.1", 100.0 + i, 60, 3) for i in range(3)] == [0, 0, 0]
    assert store.take("login", "10.0.0.1", 110.0, 60, 3) == pytest.approx(50.0)


def test_addresses_and_scopes_count_apart(store: AttemptStore) -> None:
    store.take("login", "10.0.0.1", 100.0, 60, 1)
    assert store.take("login", "10.0.0.2", 100.0, 60, 1) == 0
    assert store.take("mail", "10.0.0.1", 100.0, 60, 1) == 0


def test_attempts_leave_the_window_after_it_passes(store: AttemptStore) -> None:
    store.take("login", "10.0.0.1", 100.0, 60, 1)
    assert store.take("login", "10.0.0.1", 160.5, 60, 1) == 0


def test_a_given_back_attempt_frees_its_place(store: AttemptStore) -> None:
    store.take("login", "10.0.0.1", 100.0, 60, 1)
    store.give_back("login", "10.0.0.1")
    assert store.take("login", "10.0.0.1", 101.0, 60, 1) == 0


def test_failures_in_a_row_count_until_cleared(store: AttemptStore) -> None:
    assert [store.fail("u1") for _ in range(3)] == [1, 2, 3]
    store.clear("u1")
    assert store.fail("u1") == 1
