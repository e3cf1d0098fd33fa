"""A service killed outright leaves no process behind (`kill -9`, out of memory)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.services import answers, free_port, wait_for

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

TRACEPOINT = Path(sys.executable).parent / "tracepoint"


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, read from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(stat.parent.name))
    found: set[int] = set()
    waiting = [pid]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.add(child)
            waiting.append(child)
    return found


def running(pids: set[int]) -> set[int]:
    """Those of `pids` that still run (a zombie has ended)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def test_the_analysis_workers_end_when_the_service_is_killed(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "TRACEPOINT_DATABASE_URL": f"sqlite:///{tmp_path / 'tracepoint.db'}",
        "TRACEPOINT_PORT": str(port),
        "TRACEPOINT_CAPTURE_WORKERS": "2",
        "TRACEPOINT_RUN_DIR": str(tmp_path / "run"),
        "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
        "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
    }
    service = subprocess.Popen(
        [str(TRACEPOINT), "serve"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: answers(f"http://127.0.0.1:{port}/server/ping"), 30)

        def noted_workers() -> list[int]:
            notes = list((tmp_path / "run").glob("*.json"))
            return [w["pid"] for n in notes for w in orjson.loads(n.read_bytes())["workers"]]

        assert wait_for(lambda: len(noted_workers()) == 2, 10)
        left = descendants(service.pid)
        # Two workers, the fork server that made them and the resource tracker.
        assert set(noted_workers()) < left
        assert len(left) >= 3
    finally:
        service.send_signal(signal.SIGKILL)
        service.wait()
    assert wait_for(lambda: not running(left), 10), f"still running: {running(left)}"
