"""Worker processes that end with the service that started them, however it ends.

A pool's workers wait for work on a pipe whose write end they hold themselves, so a
service killed with SIGKILL (or out of memory) leaves them waiting for ever, and with
them the fork server and the resource tracker, whose pipes the workers keep open. Each
worker therefore watches the service process, and each service records its workers in a
file that a later start reads to end what a crash left behind.
"""

import contextlib
import logging
import os
import secrets
import select
import signal
import threading
import time
from pathlib import Path

import orjson

log = logging.getLogger(__name__)

#: Seconds between looks at the service where the system cannot tell a process's end.
_POLL = 1.0


def exit_with(service_pid: int) -> None:
    """Pool initializer: end this worker process as soon as `service_pid` has ended."""
    threading.Thread(target=_watch, args=(service_pid,), name="service-watch", daemon=True).start()


def _watch(service_pid: int) -> None:
    try:
        # Readable once the process has ended: no polling, and no mistaking a later
        # process that was given the same number.
        handle = os.pidfd_open(service_pid)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
        while _alive(service_pid):
            time.sleep(_POLL)
        os._exit(0)
    select.select([handle], [], [])
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _started(pid: int) -> int | None:
    """When a process started (clock ticks since boot), to tell it from a later one with
    the same number; None when it is gone or the system does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count from its end.
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[19])


class WorkerRecords:
    """The workers each running service has, one file per service in `directory`."""

    def __init__(self, directory: Path, kind: str) -> None:
        self._directory = directory
        self._kind = kind
        # One file per service: a process may run several (the tests do).
        self._path = directory / f"{kind}-{os.getpid()}-{secrets.token_hex(4)}.json"

    def record(self, worker_pids: list[int]) -> None:
        """Note this service's current workers (replacing what was noted before)."""
        service = {"pid": os.getpid(), "started": _started(os.getpid())}
        workers = [{"pid": pid, "started": _started(pid)} for pid in worker_pids]
        try:
            self._directory.mkdir(parents=True, exist_ok=True)
            partial = self._path.with_suffix(".tmp")
            partial.write_bytes(orjson.dumps({"service": service, "workers": workers}))
            partial.replace(self._path)
        except OSError as exc:
            # Only the clean-up after a crash depends on it; the service works without.
            log.warning("cannot record the %s workers in %s: %s", self._kind, self._directory, exc)

    def forget(self) -> None:
        """This service stopped its workers itself: nothing is left to clean up."""
        with contextlib.suppress(OSError):
            self._path.unlink()

    def clean_up(self) -> list[int]:
        """End the workers of services that ended without stopping them; their pids."""
        ended: list[int] = []
        for path in sorted(self._directory.glob(f"{self._kind}-*.json")):
            try:
                noted = orjson.loads(path.read_bytes())
                service = noted["service"]
                workers = noted["workers"]
            except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            if _same(service):
                continue  # a service that still runs keeps its workers
            for worker in workers:
                if _same(worker):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(worker["pid"], signal.SIGKILL)
                        ended.append(worker["pid"])
            with contextlib.suppress(OSError):
                path.unlink()
        if ended:
            log.warning(
                "ended %d %s workers left behind by a service that crashed: %s",
                len(ended),
                self._kind,
                ", ".join(map(str, ended)),
            )
        return ended


def _same(process: dict[str, int | None]) -> bool:
    """Whether the process noted is still the one running under its number."""
    pid = process.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    started = _started(pid)
    if started is None:
        return _alive(pid) and process.get("started") is None
    return started == process.get("started")
