"""The settings of the sign-in locks, as an operator writes them in the environment."""

import pytest

from infrastructure.settings import Settings


def test_the_locks_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEPOINT_LOGIN_LOCK_AFTER", "7")
    monkeypatch.setenv("TRACEPOINT_LOGIN_ADDRESS_LOCK_AFTER", "30")
    monkeypatch.setenv("TRACEPOINT_LOGIN_LOCK_DURATION", "30s")
    monkeypatch.setenv("TRACEPOINT_LOGIN_LOCK_MAX_DURATION", "1h")
    monkeypatch.setenv("TRACEPOINT_LOGIN_FAILURES_FORGOTTEN_AFTER", "2d")
    settings = Settings()
    assert (settings.login_lock_after, settings.login_address_lock_after) == (7, 30)
    assert settings.login_lock_duration == 30.0
    assert settings.login_lock_max_duration == 3600.0
    assert settings.login_failures_forgotten_after == 172_800.0


def test_the_old_login_attempts_setting_still_sets_the_account_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRACEPOINT_LOGIN_ATTEMPTS", "25")
    assert Settings().login_lock_after == 25


def test_the_new_name_wins_over_the_old_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACEPOINT_LOGIN_ATTEMPTS", "25")
    monkeypatch.setenv("TRACEPOINT_LOGIN_LOCK_AFTER", "4")
    assert Settings().login_lock_after == 4
