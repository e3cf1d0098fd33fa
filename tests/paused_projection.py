"""A projection held still partway, as one slowed by load: the race made deterministic."""

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection


class PausedProjection:
    """Holds `projection`'s `apply` at the first batch with an event `when` picks, until
    released: whatever the runner writes with that batch is uncommitted meanwhile."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        projection: type[Projection],
        when: Callable[[Any], bool],
    ) -> None:
        self._reached = threading.Event()
        self._released = threading.Event()
        original = projection.apply

        def apply(self_: Projection, conn: Connection, events: Sequence[LoggedEvent]) -> None:
            if not self._released.is_set() and any(when(e.event) for e in events):
                self._reached.set()
                self._released.wait(30)
            original(self_, conn, events)

        monkeypatch.setattr(projection, "apply", apply)

    async def reached(self, seconds: float = 20) -> None:
        """Wait until the projection is held."""
        assert await asyncio.to_thread(self._reached.wait, seconds), "never reached"

    def release(self) -> None:
        """Let the projection go on."""
        self._released.set()
