"""`tracepoint serve` run as an operator runs it: a start that cannot listen or reach its
database says so in one line and creates nothing; the first start that can shows the
bootstrap admin's credentials last and framed, and keeps them until the admin signs in."""

import os
import re
import socket
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from tests.services import answers, free_port, wait_for

TRACEPOINT = Path(sys.executable).parent / "tracepoint"
RULE = "+-"


def environment(tmp_path: Path, port: int, **settings: str) -> dict[str, str]:
    """A clean environment: no TRACEPOINT_* setting of the caller's leaks in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPOINT_")}
    env.pop("PUBLIC_URL", None)
    return env | {
        "TRACEPOINT_DATABASE_URL": f"sqlite:///{tmp_path / 'var' / 'tracepoint.db'}",
        "TRACEPOINT_PORT": str(port),
        "TRACEPOINT_CAPTURE_WORKERS": "0",
        "TRACEPOINT_RUN_DIR": str(tmp_path / "run"),
        "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
        "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
        **settings,
    }


def sign_in(port: int, email: str, password: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/auth/login",
        data=orjson.dumps({"email": email, "password": password}),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


def refused(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A start that must fail: its output."""
    return subprocess.run(
        [str(TRACEPOINT), "serve"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], Path]]:
    """Starts `tracepoint serve` in tmp_path; returns the file its stdout goes to."""
    started: list[subprocess.Popen[bytes]] = []

    def start(env: dict[str, str]) -> Path:
        out = tmp_path / f"stdout-{len(started)}.txt"
        with out.open("wb") as stdout, (tmp_path / "stderr.txt").open("ab") as stderr:
            started.append(
                subprocess.Popen(
                    [str(TRACEPOINT), "serve"], env=env, cwd=tmp_path, stdout=stdout, stderr=stderr
                )
            )
        return out

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=30)


def framed(output: Path) -> list[str]:
    """The framed notice of a start's output once it is complete (empty until then)."""
    lines = output.read_text().splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith(RULE)]
    return lines[rules[0] : rules[1] + 1] if len(rules) == 2 else []


def test_a_busy_port_stops_the_start_in_one_line_and_the_next_start_shows_the_admin(
    tmp_path: Path, service: Callable[[dict[str, str]], Path]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        failed = refused(tmp_path, environment(tmp_path, port))
    assert failed.returncode != 0
    assert failed.stderr.splitlines() == [
        f"tracepoint: port {port} is in use on 127.0.0.1: stop what listens there or set "
        "TRACEPOINT_PORT to a free port"
    ]
    assert failed.stdout == ""
    assert not (tmp_path / "var").exists()  # no database, so no admin nobody saw

    output = service(environment(tmp_path, port))
    assert wait_for(lambda: bool(framed(output)), 30), output.read_text()
    # Printed once the service answers, after everything else it printed.
    assert answers(f"http://127.0.0.1:{port}/server/ping")
    lines = output.read_text().splitlines()
    assert lines[-1].startswith(RULE)
    assert lines[0].startswith(f"Tracepoint listening on http://127.0.0.1:{port}")
    values = dict(
        re.findall(r"^\|\s+(email|password|static token):\s+(\S+)", "\n".join(framed(output)), re.M)
    )
    kept = tmp_path / "var" / "bootstrap-admin.txt"
    assert str(kept) in output.read_text()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert f"password: {values['password']}" in kept.read_text()

    assert sign_in(port, values["email"], values["password"]) == 200
    assert not kept.exists()


def test_an_unreachable_postgresql_stops_the_start_in_one_line_with_the_password_masked(
    tmp_path: Path,
) -> None:
    closed = free_port()
    url = f"postgresql://tracepoint:s3cret@127.0.0.1:{closed}/tracepoint"
    for command in ("serve", "replay"):
        env = environment(tmp_path, free_port(), TRACEPOINT_DATABASE_URL=url)
        failed = subprocess.run(
            [str(TRACEPOINT), command], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        assert failed.returncode != 0
        [line] = failed.stderr.splitlines()
        assert f"postgresql://tracepoint:***@127.0.0.1:{closed}/tracepoint" in line
        assert "s3cret" not in line
        assert "TRACEPOINT_DATABASE_URL" in line
