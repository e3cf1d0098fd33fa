"""The `tracepoint` commands run in the test process, as tests run them."""

import asyncio

from click.testing import Result
from typer.testing import CliRunner

from api.service.cli import cli
from tests.logging_kept import logging_kept


async def run_command(*args: str) -> Result:
    """`tracepoint ARGS` run in a thread, its output kept; the process's logging is left
    as the command found it."""
    with logging_kept():
        return await asyncio.to_thread(CliRunner().invoke, cli, list(args))
