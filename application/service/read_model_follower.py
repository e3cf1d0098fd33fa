"""Keeps the read models following the event log, and lets writers wait for them."""

import asyncio
import contextlib
import logging

from application.operations.outages import OutageWatch
from application.service.blocking import BlockingRunner
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)


class ReadModelFollower:
    """Runs the projection runner in the background: on every write, and on a timer for
    writes made by other processes sharing the database."""

    def __init__(
        self, runner: ProjectionRunner, blocking: BlockingRunner, poll_interval: float
    ) -> None:
        self._runner = runner
        self._blocking = blocking
        self._poll_interval = poll_interval
        self._wake = asyncio.Event()
        self._progress = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self._outage = OutageWatch("read-model follower", poll_interval)

    async def start(self) -> None:
        """Catch up once, then keep following in a background task."""
        await self._blocking.run(self._runner.catch_up)
        self._task = asyncio.create_task(self._follow(), name="read-model-follower")

    async def stop(self) -> None:
        """Stop following."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def wait_for(self, position: int, seconds: float) -> bool:
        """Wait until the read models include `position`; False after `seconds` without."""
        if self._runner.reached >= position:
            return True
        self._wake.set()
        async with self._progress:
            try:
                await asyncio.wait_for(
                    self._progress.wait_for(lambda: self._runner.reached >= position), seconds
                )
            except TimeoutError:
                return False
        return True

    async def next_change(self, seconds: float, every: float = 0.05) -> None:
        """Wait until the read models take in anything new, at most `seconds`.

        Writers of this process project their own events without this follower (and
        without waking its waiters), so the position is looked at every `every` seconds
        too: an in-memory number, no query.
        """
        start = self._runner.reached
        for _ in range(max(1, round(seconds / every))):
            if self._runner.reached > start:
                return
            await asyncio.sleep(every)

    async def _follow(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_interval)
            self._wake.clear()
            try:
                await self._blocking.run(self._runner.catch_up)
            except Exception as exc:
                if self._outage.failed(exc):
                    await asyncio.sleep(self._outage.delay())
                else:
                    log.exception("projection failed; retrying")
                    await asyncio.sleep(self._poll_interval)
                continue
            self._outage.succeeded()
            async with self._progress:
                self._progress.notify_all()
