"""PostgreSQL clusters of a test's own: made with `initdb` on a free port, stopped and
started at will, and a hot standby of one made with `pg_basebackup`.

Tests that stop the database (outages) or need a replica must never touch the shared
cluster the rest of the suite uses; they make one of these instead. PostgreSQL refuses to
run as root, so as root the server programs run as the `postgres` user.
"""

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from tests.conftest import is_true
from tests.services import free_port


def server_binaries() -> Path | None:
    """The directory of the newest installed PostgreSQL server programs, if any."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def require_server_binaries() -> Path:
    """The server programs' directory; skips the test without them (fails it in CI)."""
    binaries = server_binaries()
    if binaries is None:
        message = "PostgreSQL's server programs (initdb, pg_ctl) are not installed"
        if is_true(os.environ.get("CI")):
            pytest.fail(message)
        pytest.skip(message)
    return binaries


class Cluster:
    """One PostgreSQL server in a directory of its own, on 127.0.0.1:`port`, trust auth."""

    def __init__(self, binaries: Path, directory: Path, port: int) -> None:
        self.binaries = binaries
        self.directory = directory
        self.data = directory / "data"
        self.port = port

    @classmethod
    def create(cls, binaries: Path | None = None) -> "Cluster":
        """A new, started cluster in a new temporary directory."""
        directory = Path(tempfile.mkdtemp(prefix="tracepoint-pg-"))
        cluster = cls(binaries or require_server_binaries(), directory, free_port())
        cluster._own(directory)
        cluster._run(
            "initdb",
            "-D",
            str(cluster.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )
        cluster._configure()
        cluster.start()
        return cluster

    def url(self, dbname: str = "postgres") -> str:
        """The connection URL of one of its databases."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait until it accepts connections."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.directory / "log"),
            "-w",
            "-t",
            str(int(timeout)),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`fast` ends sessions; `immediate` is a crash)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def is_running(self) -> bool:
        """Whether the server runs."""
        status = self._run("pg_ctl", "-D", str(self.data), "status", check=False)
        return status.returncode == 0

    def standby(self) -> "Cluster":
        """A started hot standby streaming from this cluster, in a directory of its own."""
        directory = Path(tempfile.mkdtemp(prefix="tracepoint-pg-standby-"))
        replica = Cluster(self.binaries, directory, free_port())
        replica._own(directory)
        replica._run(
            "pg_basebackup",
            "-D",
            str(replica.data),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-R",  # writes standby.signal and primary_conninfo
            "-X",
            "stream",
            "--no-sync",
        )
        replica._configure()
        replica.start()
        return replica

    def wait_for_replay(self, primary: "Cluster", timeout: float = 10.0) -> None:
        """Wait until this standby has replayed everything `primary` has written so far,
        committed asynchronously or not."""
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            # A standby gets only what the primary flushed, and a record nothing flushes
            # (the background writer's note of running transactions, an asynchronous
            # commit) may wait for the next write: the durable commit of a transaction
            # that wrote WAL (a message to no one) flushes everything before it.
            conn.execute("SET synchronous_commit = on")
            with conn.transaction():
                conn.execute("SELECT pg_logical_emit_message(true, 'tracepoint-tests', '')")
            row = conn.execute("SELECT pg_current_wal_flush_lsn()").fetchone()
            assert row is not None
            target = row[0]
        deadline = time.monotonic() + timeout
        with psycopg.connect(self.url(), autocommit=True) as conn:
            while True:
                done = conn.execute(
                    "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (target,)
                ).fetchone()
                if done and done[0]:
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the standby on port {self.port} did not catch up")
                time.sleep(0.02)

    def destroy(self) -> None:
        """Stop the server if it runs and delete its files."""
        with contextlib.suppress(subprocess.CalledProcessError):
            if self.is_running():
                self.stop("immediate")
        shutil.rmtree(self.directory, ignore_errors=True)

    def _configure(self) -> None:
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            # Its own socket directory: the shared cluster's must not be touched.
            "unix_socket_directories": f"'{self.directory}'",
            "fsync": "off",
            "full_page_writes": "off",
            "shared_buffers": "32MB",
            "max_connections": "100",
            "wal_level": "replica",
            "max_wal_senders": "5",
            "hot_standby": "on",
            "logging_collector": "off",
        }
        with (self.data / "postgresql.auto.conf").open("a") as conf:
            for name, value in settings.items():
                conf.write(f"{name} = {value}\n")
        with (self.data / "pg_hba.conf").open("a") as hba:
            hba.write("host replication all 127.0.0.1/32 trust\n")

    def _own(self, directory: Path) -> None:
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(directory, user.pw_uid, user.pw_gid)

    def _run(
        self, program: str, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        command = [str(self.binaries / program), *args]
        if os.geteuid() == 0:
            # PostgreSQL's programs refuse to run as root.
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(
            command, check=check, capture_output=True, text=True, cwd=self.directory
        )
