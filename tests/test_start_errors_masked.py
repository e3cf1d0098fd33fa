"""A `tracepoint` command that cannot start says why on stderr without the database
password, whether the database URL is malformed or its server does not answer."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import free_port

TRACEPOINT = Path(sys.executable).parent / "tracepoint"
PASSWORD = "s3cretpw"


def failed_start(
    tmp_path: Path, command: str, database_url: str
) -> subprocess.CompletedProcess[str]:
    """The output of a start that must fail."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPOINT_")}
    env |= {
        "TRACEPOINT_DATABASE_URL": database_url,
        "TRACEPOINT_PORT": str(free_port()),
        "TRACEPOINT_RUN_DIR": str(tmp_path / "run"),
    }
    return subprocess.run(
        [str(TRACEPOINT), command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", ["serve", "replay"])
@pytest.mark.parametrize(
    "database_url",
    [
        f"postgresql://tp:{PASSWORD}@127.0.0.1:1",  # names no database
        f"postgresql://tp:{PASSWORD}@127.0.0.1:1/tp",  # nothing answers
    ],
)
def test_a_failed_start_does_not_print_the_database_password(
    tmp_path: Path, command: str, database_url: str
) -> None:
    result = failed_start(tmp_path, command, database_url)
    assert result.returncode == 1
    assert "TRACEPOINT_DATABASE_URL" in result.stderr
    assert "tp:***@127.0.0.1:1" in result.stderr
    assert PASSWORD not in result.stderr + result.stdout
