"""The `tracepoint` command: serve the API, rebuild the read models."""

import socket
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer
from aiohttp import web
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from api.logs.formats import configure_logging
from api.logs.masking import mask_text
from application.operations.startup import (
    Settings,
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
# Each result is one line, however narrow the terminal or long the file's path: where
# the output is not a terminal, rich would break lines at 80 columns, mid-path too, and
# a script reading `ok: …` lines would get pieces.
console = Console(soft_wrap=True)


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


def _reachable_settings() -> Settings:
    """The settings, with logging configured by them, once the database answers; one line
    on stderr and exit 1 when it does not."""
    configure_logging()  # masked from the first line, as for `serve`
    try:
        settings = load_settings()
        configure_logging(settings.log_format, settings.log_level)
        check_reachable(settings)
    except StartupFailed as error:
        _fail(error)
    return settings


@cli.command()
def replay() -> None:
    """Drop every read model and rebuild it from the event store."""
    settings = _reachable_settings()
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
    leaves = tracepoint.audit.upkeep.rebuild()
    tracepoint.close()
    console.print(f"Rebuilt the read models up to log position {head}.")
    console.print(f"Rebuilt the audit tree: {leaves} leaves; the signed heads are kept.")


def _progress() -> Progress:
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )


def _json_file(path: Path) -> Any:
    """A JSON file's content; exit 2 with one line when it cannot be read as JSON."""
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        sys.stderr.write(f"tracepoint: {path}: {exc}\n")
        raise typer.Exit(code=2) from exc


@cli.command()
def verify(
    head: Annotated[
        Path | None,
        typer.Option(
            "--head",
            help="A head saved earlier (the JSON of GET /audit/heads/latest): checked "
            "against today's log.",
        ),
    ] = None,
) -> None:
    """Check the event log against the audit tree, its signed heads and a saved head.

    Exits 1 naming the first log position that does not match.
    """
    from application.audit.offline_check import unwrapped
    from domain.audit.heads import MalformedHead, head_from_json

    settings = _reachable_settings()
    saved = None
    if head is not None:
        try:
            saved = head_from_json(unwrapped(_json_file(head)))
        except MalformedHead as exc:
            sys.stderr.write(f"tracepoint: {head}: {exc}\n")
            raise typer.Exit(code=2) from exc
    from application.service.runtime import Tracepoint

    tracepoint = Tracepoint(settings)
    verification = tracepoint.audit.verification
    try:
        with _progress() as progress:
            task = progress.add_task("Checking the event log", total=verification.log_end())
            report = verification.verify(lambda n: progress.advance(task, n), saved)
            progress.update(task, completed=verification.log_end())
    finally:
        tracepoint.close()
    if report.ok:
        checked = " and the saved head" if saved else ""
        console.print(
            f"The log's {report.entries} entries match the audit tree, its {report.heads} "
            f"signed heads{checked}."
        )
        return
    first = report.first_position
    where = f" (first at log position {first})" if first is not None else ""
    sys.stderr.write(f"tracepoint verify: {len(report.findings)} problems found{where}:\n")
    for finding in report.findings:
        sys.stderr.write(f"- {finding.message}\n")
    raise typer.Exit(code=1)


@cli.command("check-proof")
def check_proof(
    public_key: Annotated[
        Path, typer.Option("--public-key", help="PEM, or the JSON of GET /audit/public-key.")
    ],
    proofs: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Answers of /audit/proof/inclusion, /audit/proof/consistency or heads."
        ),
    ] = None,
    head: Annotated[
        Path | None,
        typer.Option("--head", help="The head you saved earlier, which consistency proofs extend."),
    ] = None,
) -> None:
    """Check the audit API's proofs and heads offline, with the public key alone.

    Heads' signatures, inclusion proofs, and that a newer head extends the one you saved;
    no database is needed.
    """
    from application.audit.offline_check import (
        CheckFailed,
        check_consistency,
        check_inclusion,
        public_key_of,
        signed_head,
        unwrapped,
    )

    try:
        key = public_key_of(public_key.read_text(encoding="utf-8"))
    except (OSError, CheckFailed) as exc:
        sys.stderr.write(f"tracepoint: {public_key}: {exc}\n")
        raise typer.Exit(code=2) from exc
    failed = False
    try:
        saved = signed_head(key, _json_file(head), "the saved head") if head else None
        if saved is not None:
            console.print(f"ok: the saved head of {saved.tree_size} entries is signed by the key")
    except CheckFailed as exc:
        sys.stderr.write(f"FAILED: {exc}\n")
        raise typer.Exit(code=1) from exc
    for path in proofs or []:
        answer = unwrapped(_json_file(path))
        try:
            if isinstance(answer, dict) and "audit_path" in answer:
                result = check_inclusion(key, answer)
            elif isinstance(answer, dict) and "consistency_path" in answer:
                if saved is None:
                    raise CheckFailed("a consistency proof is checked against --head")
                result = check_consistency(key, saved, answer)
            else:
                checked = signed_head(key, answer, "the head")
                result = f"the head of {checked.tree_size} entries is signed by the key"
            console.print(f"ok: {path}: {result}")
        except CheckFailed as exc:
            sys.stderr.write(f"FAILED: {path}: {exc}\n")
            failed = True
    if failed:
        raise typer.Exit(code=1)


def main() -> None:
    """Entry point of the `tracepoint` console script."""
    cli()
