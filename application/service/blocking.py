"""Running the synchronous store and database work off the event loop."""

import asyncio
import contextvars
import functools
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, asynccontextmanager
from typing import ParamSpec, TypeVar

from application.service.errors import as_unavailable

P = ParamSpec("P")
T = TypeVar("T")


class BlockingRunner:
    """A dedicated thread pool for the event store, the databases and CPU-heavy steps."""

    def __init__(
        self, workers: int = 8, drop_broken_connections: Callable[[], None] | None = None
    ) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tracepoint")
        self._drop_broken = drop_broken_connections
        self._dropping = threading.Lock()

    async def run(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `func` in the pool, in a copy of the caller's context (a routed read holds
        there where its queries go), and await its result.

        A failure that means the database is unreachable is raised as DatabaseUnavailable
        (the one place where storage errors become the application's), after the pools
        have dropped their broken connections, so that a retry gets a live one.
        """
        loop = asyncio.get_running_loop()
        try:
            call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
            return await loop.run_in_executor(self._executor, call)
        except Exception as exc:
            unavailable = as_unavailable(exc)
            if unavailable is None or unavailable is exc:
                raise
            if unavailable.fresh_connection_may_help:
                await loop.run_in_executor(self._executor, self._drop_broken_connections)
            raise unavailable from exc

    def _drop_broken_connections(self) -> None:
        # Many requests fail together in an outage; one of them testing the pools will do.
        if self._drop_broken is None or not self._dropping.acquire(blocking=False):
            return
        try:
            self._drop_broken()
        except Exception:  # the pools are tested again at the next failure
            return
        finally:
            self._dropping.release()

    def close(self) -> None:
        """Wait for running work and stop the threads."""
        self._executor.shutdown(wait=True)


@asynccontextmanager
async def entered(blocking: BlockingRunner, manager: AbstractContextManager[T]) -> AsyncIterator[T]:
    """A blocking context manager (a database lock) entered and left in the pool."""
    value = await blocking.run(manager.__enter__)
    try:
        yield value
    finally:
        await blocking.run(manager.__exit__, None, None, None)
