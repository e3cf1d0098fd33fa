"""The `tracepoint` command: serve the API, rebuild the read models."""

import typer
from aiohttp import web
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from api.app import create_app
from api.logs.access import AccessLogger
from api.logs.formats import configure_logging
from application.runtime import Tracepoint

cli = typer.Typer(
    help="Tracepoint: an event-sourced GS1 EPCIS 2.0 repository.",
    no_args_is_help=True,
    # A traceback's local variables can hold passwords and tokens.
    pretty_exceptions_show_locals=False,
)
console = Console()


@cli.command()
def serve() -> None:
    """Start the HTTP service (settings from TRACEPOINT_* environment variables)."""
    configure_logging()  # masked from the first line; in the format asked for below
    tracepoint = Tracepoint.from_environment()
    settings = tracepoint.settings
    configure_logging(settings.log_format, settings.log_level)
    app = create_app(tracepoint)

    async def announce(app: web.Application) -> None:
        credentials = tracepoint.bootstrap_credentials
        if credentials is not None and credentials.generated:
            console.print(
                "[bold]Created the bootstrap admin. These credentials are shown only once:[/]"
            )
            console.print(f"  email:        {credentials.email}")
            console.print(f"  password:     {credentials.password}")
            console.print(f"  static token: {credentials.token}")

    app.on_startup.append(announce)
    console.print(f"Tracepoint on http://{settings.host}:{settings.port} ({settings.database_url})")
    web.run_app(
        app, host=settings.host, port=settings.port, print=None, access_log_class=AccessLogger
    )


@cli.command()
def replay() -> None:
    """Drop every read model and rebuild it from the event store."""
    tracepoint = Tracepoint.from_environment()
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
