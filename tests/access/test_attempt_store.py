"""Sign-in attempts, failures in a row and the locks they hold, counted in the database."""

import pytest

from domain.access.backoff import Backoff
from infrastructure.attempt_store import AttemptStore
from infrastructure.database import Database

#: Three failures in a row lock for 60 s, then 120 s, …; a quiet day forgets them.
RULE = Backoff(after=3, first=60.0, longest=600.0, forget=86_400.0)
ACCOUNT = [("account:a@example.com", RULE)]


@pytest.fixture
def store(database: Database) -> AttemptStore:
    return AttemptStore(database)


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


def test_failures_in_a_row_lock_once_the_rule_says_so(store: AttemptStore) -> None:
    assert [store.fail_ahead("login", ACCOUNT, 100.0 + i) for i in range(3)] == [0, 0, 0]
    assert store.fail_ahead("login", ACCOUNT, 110.0) == pytest.approx(52.0)


def test_a_locked_subject_counts_no_more_failures(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    store.fail_ahead("login", ACCOUNT, 130.0)
    assert store.failures("login", "account:a@example.com") == (3, 160.0)


def test_the_first_failure_after_a_lock_locks_twice_as_long(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    assert store.fail_ahead("login", ACCOUNT, 161.0) == 0
    assert store.fail_ahead("login", ACCOUNT, 162.0) == pytest.approx(119.0)


def test_one_locked_subject_refuses_the_attempt_and_counts_nothing(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    both = [*ACCOUNT, ("address:10.0.0.9", RULE)]
    assert store.fail_ahead("login", both, 101.0) == pytest.approx(59.0)
    assert store.failures("login", "address:10.0.0.9") == (0, 0.0)


def test_a_withdrawn_failure_gives_back_its_count_and_its_lock(store: AttemptStore) -> None:
    store.fail_ahead("login", ACCOUNT, 100.0)
    store.fail_ahead("login", ACCOUNT, 101.0)
    store.fail_ahead("login", ACCOUNT, 102.0)
    store.withdraw("login", ["account:a@example.com"], 102.0)
    assert store.failures("login", "account:a@example.com") == (2, 0.0)
    assert store.fail_ahead("login", ACCOUNT, 103.0) == 0


def test_cleared_subjects_start_again_unlocked(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    store.clear("login", ["account:a@example.com"])
    assert store.failures("login", "account:a@example.com") == (0, 0.0)
    assert [store.fail_ahead("login", ACCOUNT, 101.0) for _ in range(3)] == [0, 0, 0]


def test_failures_are_forgotten_after_a_quiet_while(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    later = 100.0 + 86_400.0 + 1
    assert store.fail_ahead("login", ACCOUNT, later) == 0
    assert store.failures("login", "account:a@example.com") == (1, 0.0)


def test_scopes_lock_apart(store: AttemptStore) -> None:
    for _ in range(3):
        store.fail_ahead("login", ACCOUNT, 100.0)
    assert store.fail_ahead("other", ACCOUNT, 101.0) == 0
