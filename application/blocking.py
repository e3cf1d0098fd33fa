"""Running the synchronous store and database work off the event loop."""

import asyncio
import contextvars
import functools
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, asynccontextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class BlockingRunner:
    """A dedicated thread pool for the event store, the databases and CPU-heavy steps."""

    def __init__(self, workers: int = 8) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tracepoint")

    async def run(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run `func` in the pool, in a copy of the caller's context (a routed read holds
        there where its queries go), and await its result."""
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

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
