"""How long failures in a row lock the password sign-in."""

from domain.access.backoff import Backoff

RULE = Backoff(after=3, first=60.0, longest=900.0, forget=86_400.0)


def test_failures_below_the_limit_do_not_lock() -> None:
    assert [RULE.lock_seconds(n) for n in (0, 1, 2)] == [0.0, 0.0, 0.0]


def test_the_lock_doubles_with_every_failure_past_the_limit() -> None:
    assert [RULE.lock_seconds(n) for n in (3, 4, 5, 6)] == [60.0, 120.0, 240.0, 480.0]


def test_the_lock_is_never_longer_than_the_longest() -> None:
    assert RULE.lock_seconds(7) == 900.0
    assert RULE.lock_seconds(10**6) == 900.0
