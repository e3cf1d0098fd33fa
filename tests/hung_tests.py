"""The last guard against a test that hangs: pytest-timeout fails a test after 300 s by a
signal, which a test blocked in C code, or hung again in its teardown, never sees. After
`HARD_LIMIT` seconds the worker writes every thread's stack and exits (faulthandler, from
C), pytest-xdist reports the test as crashed and goes on with a new worker, and the run's
summary prints the stacks, where CI would otherwise wait out its own limit and print
nothing of why."""

import faulthandler
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

#: Seconds a test may take, set-up and teardown included, before its worker ends.
HARD_LIMIT = float(os.environ.get("TRACEPOINT_TEST_HARD_LIMIT", "900"))


def _folder() -> Path:
    """Where this run's workers write what a hung test's threads were doing."""
    run = os.environ.get("TRACEPOINT_TEST_RUN", "run")
    return Path(tempfile.gettempdir()) / f"tracepoint-hung-tests-{run}"


class _Guard:
    """One process's file for the stacks, truncated and named for each test."""

    def __init__(self) -> None:
        self._path: Path | None = None
        self._file: IO[str] | None = None

    def arm(self, nodeid: str) -> None:
        if self._file is None:
            _folder().mkdir(parents=True, exist_ok=True)
            self._path = _folder() / f"{os.getpid()}.txt"
            self._file = self._path.open("w+", encoding="utf-8")
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"{nodeid} ran {HARD_LIMIT:.0f} s; its worker's threads:\n")
        self._file.flush()
        faulthandler.dump_traceback_later(HARD_LIMIT, exit=True, file=self._file)

    def disarm(self) -> None:
        faulthandler.cancel_dump_traceback_later()

    def close(self) -> None:
        """At the process's normal end: nothing hung, so nothing to keep."""
        if self._file is not None and self._path is not None:
            self._file.close()
            self._path.unlink(missing_ok=True)


_guard = _Guard()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Each test runs under the hard limit."""
    _guard.arm(item.nodeid)
    try:
        yield
    finally:
        _guard.disarm()


def pytest_unconfigure(config: pytest.Config) -> None:
    """A process that ends normally leaves no file."""
    _guard.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the stacks of the workers a hung test ended."""
    folder = _folder()
    dumps = sorted(folder.glob("*.txt")) if folder.is_dir() else []
    for dump in dumps:
        text = dump.read_text(encoding="utf-8", errors="replace")
        if "\n" in text.rstrip("\n"):  # more than the test's name: the stacks
            terminalreporter.section("hung test", sep="=", red=True)
            terminalreporter.write(text)
    if not hasattr(terminalreporter.config, "workerinput"):
        shutil.rmtree(folder, ignore_errors=True)
