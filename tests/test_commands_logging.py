"""A command a test runs in its process leaves that process's logging as it found it."""

import logging
import sys

import pytest

from tests.commands import run_command


async def test_a_command_run_by_a_test_leaves_the_root_logger_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The command sets up its logging, then fails to reach the database.
    monkeypatch.setenv("TRACEPOINT_DATABASE_URL", "postgresql://tp@127.0.0.1:1/tp")
    monkeypatch.setenv("TRACEPOINT_SECRET", "test-secret")
    root = logging.getLogger()
    handlers, level, excepthook = root.handlers[:], root.level, sys.excepthook
    result = await run_command("replay")
    assert result.exit_code == 1
    assert "TRACEPOINT_DATABASE_URL" in result.output
    assert (root.handlers, root.level, sys.excepthook) == (handlers, level, excepthook)
    assert getattr(logging, "_warnings_showwarning", None) is None
