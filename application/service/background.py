"""The service's scheduled background work (apscheduler): identifier jobs, reservations
and pool refills. Each run does what is waiting; locks in the database make sure that,
with several processes, each job or reservation is worked on by one of them."""

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from application.operations.outages import OutageWatch

log = logging.getLogger(__name__)


class _SkipsAreNormal(logging.Filter):
    """A run still going when the next is due is how this works, not a warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


logging.getLogger("apscheduler.scheduler").addFilter(_SkipsAreNormal())
# Every run of every timer, every second, at INFO: the log would hold nothing else.
logging.getLogger("apscheduler.executors.default").setLevel(logging.WARNING)

#: Work that runs on a timer and when woken: returns nothing, raises to be logged.
Work = Callable[[], Awaitable[None]]


class Background:
    """Runs each piece of work on its interval, one run at a time, and at once when woken."""

    def __init__(self) -> None:
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._work: dict[str, tuple[Work, float]] = {}
        self._running: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False
        #: Woken while running: run again right after.
        self._again: set[str] = set()
        self._outages: dict[str, OutageWatch] = {}
        #: Work waiting out an outage → when (time.monotonic) it tries again.
        self._retry_at: dict[str, float] = {}

    def every(self, name: str, seconds: float, work: Work) -> None:
        """Run `work` every `seconds` (and when `wake(name)` is called)."""
        self._work[name] = (work, seconds)
        self._outages[name] = OutageWatch(f"background work {name}", seconds)

    async def start(self) -> None:
        """Start the timers; each piece of work also runs once right away."""
        if self._scheduler.running:
            return
        for name, (work, seconds) in self._work.items():
            self._scheduler.add_job(
                self._guarded(name, work),
                "interval",
                seconds=seconds,
                id=name,
                max_instances=1,
                # A run that was missed while the last one was still going is not made up.
                coalesce=True,
                next_run_time=datetime.now(UTC),
            )
        self._scheduler.start()

    def wake(self, name: str) -> None:
        """Run `name` as soon as its current run (if any) ends."""
        if not self._scheduler.running:
            return
        if name in self._running:
            self._again.add(name)
            return
        job = self._scheduler.get_job(name)
        if job is not None:
            job.modify(next_run_time=datetime.now(UTC))

    async def stop(self) -> None:
        """Stop the timers and cancel the runs in progress (each resumes where it stopped
        at the next start: jobs and deliveries save their progress as they go)."""
        self._stopping = True
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _guarded(self, name: str, work: Work) -> Work:
        outage = self._outages[name]

        async def run() -> None:
            if outage.down and time.monotonic() < self._retry_at.get(name, 0.0):
                return  # backing off: the database was unavailable at the last try
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            self._running.add(name)
            try:
                while True:
                    self._again.discard(name)
                    try:
                        await work()
                    except Exception as exc:
                        # The next run tries again; the error must not stop the timer.
                        if outage.failed(exc):
                            self._retry_at[name] = time.monotonic() + outage.delay()
                        else:
                            log.exception("background work %s failed", name)
                        return
                    outage.succeeded()
                    if name not in self._again:
                        return
            except asyncio.CancelledError:
                if not self._stopping:
                    raise
            finally:
                self._running.discard(name)
                if task is not None:
                    self._tasks.discard(task)

        return run
