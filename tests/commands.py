"""The `tracepoint` commands run in the test process, as tests run them."""

import asyncio
import contextlib
import logging
import sys
from collections.abc import Iterator

from click.testing import Result
from typer.testing import CliRunner

from api.service.cli import cli


async def run_command(*args: str) -> Result:
    """`tracepoint ARGS` run in a thread, its output kept; the process's logging is left
    as the command found it."""
    with logging_kept():
        return await asyncio.to_thread(CliRunner().invoke, cli, list(args))


@contextlib.contextmanager
def logging_kept() -> Iterator[None]:
    """Undo what a command's logging setup does to the process: its root handler writes to
    the runner's stream, closed once the command ends, so that each later record of the
    test (warnings too, routed to logging) failed with '--- Logging error ---' until
    `_logging_as_it_was` (tests/conftest.py) removed it after the test."""
    root = logging.getLogger()
    handlers, level, excepthook = root.handlers[:], root.level, sys.excepthook
    warnings_captured = getattr(logging, "_warnings_showwarning", None) is not None
    try:
        yield
    finally:
        sys.excepthook = excepthook
        logging.captureWarnings(warnings_captured)
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)
