"""Which reads may go to a replica: those of read requests, once the replica has replayed
the caller's own last write (read-your-writes, across every process of the primary)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from application.blocking import BlockingRunner
from infrastructure.replicas import routed_read
from infrastructure.write_positions import WritePositions


class ReadRouting:
    """Notes where each caller's writes end and routes its reads accordingly; does
    nothing without replicas."""

    def __init__(self, positions: WritePositions | None, blocking: BlockingRunner) -> None:
        self._blocking = blocking
        self._positions = positions

    @property
    def enabled(self) -> bool:
        """Whether there are replicas to route to."""
        return self._positions is not None

    async def wrote(self, caller: str | None) -> None:
        """`caller` may have written: its next reads need a replica past this point."""
        if self._positions is not None and caller is not None:
            await self._blocking.run(self._positions.wrote, caller)

    @asynccontextmanager
    async def reading(self, caller: str | None) -> AsyncIterator[None]:
        """Within the block, queries may go to a replica that has replayed past the
        caller's last write (any replica for a caller that never wrote)."""
        if self._positions is None:
            yield
            return
        after = await self._blocking.run(self._positions.last_write, caller) if caller else None
        with routed_read(after):
            yield
