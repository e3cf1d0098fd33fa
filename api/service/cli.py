"""The `tracepoint` command: serve the API, rebuild the read models."""

import socket
import sys
from typing import NoReturn

import typer
from aiohttp import web
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from api.logs.formats import configure_logging
from api.logs.masking import mask_text
from application.operations.startup import (
    StartupFailed,
    check_reachable,
    load_settings,
    open_listeners,
    shown_database_url,
)

cli = typer.Typer(
    help="Tracepoint: an event-sourced GS1 EPCIS 2.0 repository.",
    no_args_is_help=True,
    # A traceback's local variables can hold passwords and tokens.
    pretty_exceptions_show_locals=False,
)
console = Console()


def _fail(error: StartupFailed) -> NoReturn:
    """One line on stderr and a non-zero exit: no traceback for an operator's mistake."""
    # Written outside the logging filter, so masked here: a message may quote a setting.
    sys.stderr.write(f"tracepoint: {mask_text(str(error))}\n")
    raise typer.Exit(code=1)


@cli.command()
def serve() -> None:
    """Start the HTTP service (settings from TRACEPOINT_* environment variables)."""
    configure_logging()  # masked from the first line; in the format asked for below
    try:
        settings = load_settings()
        configure_logging(settings.log_format, settings.log_level)
        # Before anything is created: a start that fails here leaves no admin behind
        # whose credentials nobody saw.
        listeners = open_listeners(settings)
        check_reachable(settings)
    except StartupFailed as error:
        _fail(error)
    # Imported once the checks passed: a failing start answers in a moment.
    from api.logs.access import AccessLogger
    from api.operations.first_start import first_start_notice
    from api.service.app import create_app
    from application.service.runtime import Tracepoint

    tracepoint = Tracepoint(settings)
    app = create_app(tracepoint)

    def listening(_message: str) -> None:
        # aiohttp calls this once its sockets accept connections: the credentials come
        # last, after the start-up logs, where they are seen.
        print(
            f"Tracepoint listening on {', '.join(_address(s) for s in listeners)} "
            f"(PUBLIC_URL {settings.public_url}, database {shown_database_url(settings)})",
            flush=True,
        )
        notice = first_start_notice(
            tracepoint.bootstrap_credentials,
            tracepoint.first_credentials,
            tracepoint.first_credentials_error,
            settings.public_url,
        )
        print(notice, end="", flush=True)

    web.run_app(app, sock=listeners, print=listening, access_log_class=AccessLogger)


def _address(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@cli.command()
def replay() -> None:
    """Drop every read model and rebuild it from the event store."""
    configure_logging()  # masked from the first line, as for `serve`
    try:
        settings = load_settings()
        configure_logging(settings.log_format, settings.log_level)
        check_reachable(settings)
    except StartupFailed as error:
        _fail(error)
    from application.service.runtime import Tracepoint

    tracepoint = Tracepoint(settings)
    total = tracepoint.store.max_position()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("Replaying the event log", total=total)

        def advance(count: int) -> None:
            progress.advance(task, count)

        head = tracepoint.projections.rebuild(advance)
        progress.update(task, completed=total)
    tracepoint.close()
    console.print(f"Rebuilt the read models up to log position {head}.")


def main() -> None:
    """Entry point of the `tracepoint` console script."""
    cli()
