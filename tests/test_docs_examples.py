"""The shell examples of README.md and docs/*.md run as written against a fresh service.

The convention the documentation follows:

- Every ```` ```sh ````, ```` ```bash ````, ```` ```shell ```` and ```` ```console ````
  block is an example that runs (of a `console` block, the `$ ` lines and their `\\`
  continuations). A block that cannot run here (`make run`, `pip install`, a partner
  server, SMTP, minutes of work) has `<!-- not run: <reason> -->` on the line before it.
- The blocks of one file run in order in one fresh `bash -euo pipefail`, in an empty
  directory, against a service started for that file alone: a block may use the
  variables an earlier block of the same file set (`TOKEN`), never another file's.
- Examples reach the service at http://127.0.0.1:8080; the test starts its own on a free
  port (so a service already on 8080, or another test run, never meets it) and writes
  that address instead. They sign in as `admin@tracepoint.local` with
  `$TRACEPOINT_ADMIN_PASSWORD`, or use the static token `$TRACEPOINT_ADMIN_TOKEN`; the
  test gives the service and the shell the same values.
- A command that fails must fail its block: `curl -fsS` (a 4xx or 5xx is an error),
  and only curl, python3 and the shell's own tools (no jq).

A failure names the block's file and line, the block, its output and the service's log;
`pytest tests/test_docs_examples.py -k history` runs one file's. The service runs on
SQLite: what the examples show does not depend on the backend.
"""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.markdown_examples import Example, examples, last_started, script
from tests.services import answers, free_port

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TRACEPOINT = Path(sys.executable).parent / "tracepoint"
ADMIN = {
    "TRACEPOINT_ADMIN_EMAIL": "admin@tracepoint.local",
    "TRACEPOINT_ADMIN_PASSWORD": "docs-example-password",
    "TRACEPOINT_ADMIN_TOKEN": "docs-example-static-token",
}
#: Seconds a file's examples may take, and the service to answer its first ping.
RUN_TIMEOUT = 120
START_TIMEOUT = 60


def _runnable() -> dict[str, list[Example]]:
    found = {}
    for path in DOCUMENTS:
        blocks = [b for b in examples(path, str(path.relative_to(ROOT))) if b.run]
        if blocks:
            found[blocks[0].file] = blocks
    return found


RUNNABLE = _runnable()


@dataclass
class Service:
    """A `tracepoint serve` started for one file's examples."""

    address: str
    log: Path


#: The examples and the test reach the service directly, whatever proxy is configured.
_LOCAL = "127.0.0.1,localhost"


def _clean_environment() -> dict[str, str]:
    """This environment without settings of ours that would reach the service, no proxy."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TRACEPOINT_", "EMAIL_", "PUBLIC_URL"))
    }
    return {**kept, "NO_PROXY": _LOCAL, "no_proxy": _LOCAL}


def _start(directory: Path, log: Path) -> tuple[subprocess.Popen[bytes], str] | None:
    """`tracepoint serve` on a free port, answering; None if another took the port first."""
    port = free_port()
    address = f"127.0.0.1:{port}"
    env = {
        **_clean_environment(),
        **ADMIN,
        "TRACEPOINT_DATABASE_URL": f"sqlite:///{directory / 'tracepoint.db'}",
        "TRACEPOINT_HOST": "127.0.0.1",
        "TRACEPOINT_PORT": str(port),
        "PUBLIC_URL": f"http://{address}",
        "TRACEPOINT_RUN_DIR": str(directory / "run"),
        "TRACEPOINT_MAIL_DIR": str(directory / "mail"),
        "TRACEPOINT_UPLOADS_DIR": str(directory / "uploads"),
        # Examples capture a few events: no analysis workers to fork.
        "TRACEPOINT_CAPTURE_WORKERS": "0",
        "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
        "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
    }
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(TRACEPOINT), "serve"], env=env, cwd=directory, stdout=output, stderr=output
        )
    deadline = time.monotonic() + START_TIMEOUT
    while not answers(f"http://{address}/server/ping"):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            return None
        time.sleep(0.05)
    return process, address


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    """A fresh service on SQLite in its own directory, on a free port."""
    log = tmp_path / "service.log"
    for attempt in range(3):
        directory = tmp_path / f"service-{attempt}"
        directory.mkdir()
        started = _start(directory, log)
        if started is not None:
            break
    else:
        pytest.fail(f"the service did not start:\n{log.read_text(errors='replace')}")
    process, address = started
    try:
        yield Service(address, log)
    finally:
        # Nothing of it is kept, and it has no child processes (no capture workers).
        process.kill()
        process.wait()


@pytest.mark.parametrize("document", sorted(RUNNABLE))
def test_the_shell_examples_run_as_written(document: str, service: Service, tmp_path: Path) -> None:
    workdir = tmp_path / "examples"
    workdir.mkdir()
    blocks = RUNNABLE[document]
    try:
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script(blocks, service.address)],
            env={**_clean_environment(), **ADMIN},
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=RUN_TIMEOUT,
            text=True,
            check=False,
        )
        output, failed = result.stdout, result.returncode != 0
        status = f"exit status {result.returncode}"
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout or b""
        output = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        failed = True
        status = f"still running after {RUN_TIMEOUT} s"
    if failed:
        place, printed = last_started(output)
        source = next((b.source for b in blocks if b.place == place), "")
        log_tail = "\n".join(service.log.read_text(errors="replace").splitlines()[-30:])
        pytest.fail(
            f"{place or document}: the example failed ({status})\n"
            f"--- example ---\n{source}\n--- output ---\n{printed}\n"
            f"--- service log (last lines) ---\n{log_tail}",
            pytrace=False,
        )
