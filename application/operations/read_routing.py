"""Which reads may go to a replica: those of read requests, once the replica has replayed
the caller's own last write (read-your-writes, across every process of the primary)."""

import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from application.service.blocking import BlockingRunner
from infrastructure.replicas import routed_read
from infrastructure.write_positions import WritePositions

log = logging.getLogger(__name__)

T = TypeVar("T")


class ReadRouting:
    """Notes where each caller's writes end and routes its reads accordingly; does
    nothing without replicas."""

    def __init__(
        self,
        positions: WritePositions | None,
        blocking: BlockingRunner,
        max_lag: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._blocking = blocking
        self._positions = positions
        self._max_lag = max_lag
        self._clock = clock
        #: Callers whose last write could not be noted → until when (`clock`) they read
        #: on the primary: by then every replica within the lag bound has that write.
        self._on_primary: dict[str, float] = {}

    @property
    def enabled(self) -> bool:
        """Whether there are replicas to route to."""
        return self._positions is not None

    async def wrote(self, caller: str | None) -> None:
        """`caller` may have written: its next reads need a replica past this point.

        Never raises: the write is done, and a failure to note it (the primary blinked)
        only keeps this caller's reads in this process on the primary for a while."""
        if self._positions is None or caller is None:
            return
        try:
            await self._blocking.run(self._positions.wrote, caller)
        except Exception as exc:
            noticed = self._pinned(caller)
            now = self._clock()
            self._on_primary = {c: t for c, t in self._on_primary.items() if t > now}
            self._on_primary[caller] = now + self._max_lag
            if noticed:  # one line per caller and period: an outage fails many writes
                return
            log.warning(
                "could not note where the writes of %s end (%s); its reads use the primary"
                " for %.0f s",
                caller,
                f"{type(exc).__name__}: {exc}".strip(),
                self._max_lag,
            )

    async def read(self, caller: str | None, read: Callable[[], Awaitable[T]]) -> T:
        """Run `read`, whose queries may go to a replica that has replayed past the
        caller's last write (any replica for a caller that never wrote); run it again on
        the primary when a query failed on the replica."""
        if self._positions is None:
            return await read()
        if self._pinned(caller):
            with routed_read(None, primary_only=True):
                return await read()
        after = await self._blocking.run(self._positions.last_write, caller) if caller else None
        with routed_read(after) as route:
            try:
                return await read()
            except Exception:
                if not route.failed:
                    raise
        log.debug("a read failed on a replica; running it on the primary")
        with routed_read(None, primary_only=True):
            return await read()

    def _pinned(self, caller: str | None) -> bool:
        until = self._on_primary.get(caller) if caller is not None else None
        return until is not None and until > self._clock()
