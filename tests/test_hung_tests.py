"""A test that hangs past every other limit ends its worker, and the run's summary shows
where its threads were."""

import os
import subprocess
import sys
from pathlib import Path

HANGING = """
import time

def test_that_hangs():
    time.sleep(60)

def test_after_it():
    pass
"""


def test_a_hung_test_ends_its_worker_and_the_summary_shows_its_stack(tmp_path: Path) -> None:
    (tmp_path / "test_hanging.py").write_text(HANGING)
    env = {
        **os.environ,
        "TRACEPOINT_TEST_HARD_LIMIT": "1",
        "PYTHONPATH": str(Path(__file__).parent.parent),
        "TMPDIR": str(tmp_path),
    }
    env.pop("TRACEPOINT_TEST_RUN", None)  # a run of its own
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.hung_tests",
            "-n",
            "1",
            "--timeout=0",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "-c",
            "/dev/null",
            str(tmp_path / "test_hanging.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "crashed while running 'test_hanging.py::test_that_hangs'" in output
    assert "test_hanging.py::test_that_hangs ran 1 s" in output
    assert "line 5 in test_that_hangs" in output
    assert "1 passed" in output  # the next test ran on a new worker
    assert not list(tmp_path.glob("tracepoint-hung-tests-*"))
