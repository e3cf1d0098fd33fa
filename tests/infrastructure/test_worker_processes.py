"""Worker processes end with their service, and a start ends those a crash left behind."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from application.epcis.analysis import EventAnalyser
from infrastructure.worker_processes import WorkerRecords, _started

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@pytest.fixture
def stray() -> Iterator[subprocess.Popen[bytes]]:
    """A process standing for a worker that outlived its service."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def ended_process() -> dict[str, int | None]:
    """A service that ran and is gone."""
    finished = subprocess.Popen(["true"])
    finished.wait()
    return {"pid": finished.pid, "started": 1}


def note(directory: Path, name: str, service: dict[str, int | None], workers: list[int]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    noted = {"service": service, "workers": [{"pid": p, "started": _started(p)} for p in workers]}
    (directory / f"analysis-workers-{name}.json").write_bytes(orjson.dumps(noted))


def ends_within(process: subprocess.Popen[bytes], seconds: float) -> bool:
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


def test_the_workers_of_a_service_that_ended_are_ended(
    tmp_path: Path, stray: subprocess.Popen[bytes]
) -> None:
    note(tmp_path, "crashed", ended_process(), [stray.pid])
    ended = WorkerRecords(tmp_path, "analysis-workers").clean_up()
    assert ended == [stray.pid]
    assert ends_within(stray, 5)
    assert list(tmp_path.iterdir()) == []


def test_the_workers_of_a_service_that_still_runs_are_left_alone(
    tmp_path: Path, stray: subprocess.Popen[bytes]
) -> None:
    running = {"pid": os.getppid(), "started": _started(os.getppid())}
    note(tmp_path, "running", running, [stray.pid])
    assert WorkerRecords(tmp_path, "analysis-workers").clean_up() == []
    assert stray.poll() is None


def test_a_process_that_took_a_noted_workers_number_is_left_alone(
    tmp_path: Path, stray: subprocess.Popen[bytes]
) -> None:
    noted = {"service": ended_process(), "workers": [{"pid": stray.pid, "started": 1}]}
    tmp_path.joinpath("analysis-workers-old.json").write_bytes(orjson.dumps(noted))
    assert WorkerRecords(tmp_path, "analysis-workers").clean_up() == []
    assert stray.poll() is None


def test_an_unreadable_note_is_dropped(tmp_path: Path) -> None:
    tmp_path.joinpath("analysis-workers-torn.json").write_bytes(b'{"service": ')
    assert WorkerRecords(tmp_path, "analysis-workers").clean_up() == []
    assert list(tmp_path.iterdir()) == []


def test_an_analyser_ends_what_a_crash_left_when_it_starts_and_notes_its_own_workers(
    tmp_path: Path, stray: subprocess.Popen[bytes]
) -> None:
    note(tmp_path, "crashed", ended_process(), [stray.pid])
    analyser = EventAnalyser(1, WorkerRecords(tmp_path, "analysis-workers"))
    try:
        analyser.start()
        assert ends_within(stray, 5)
        deadline = time.monotonic() + 10
        while not list(tmp_path.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        [own] = tmp_path.glob("*.json")
        noted = orjson.loads(own.read_bytes())
        assert [w["pid"] for w in noted["workers"]] == analyser.worker_pids()
    finally:
        analyser.close()
    assert list(tmp_path.glob("*.json")) == []
