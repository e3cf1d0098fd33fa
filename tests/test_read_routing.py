"""Read routing when the primary cannot note where a caller's writes end: the caller's
reads stay on the primary for the lag bound, then are routed again."""

import logging
from collections.abc import Iterator
from typing import Any, cast

import pytest

from application.operations.read_routing import ReadRouting
from application.service.blocking import BlockingRunner
from infrastructure.replicas import current_route
from infrastructure.write_positions import WritePositions


class _Blinking:
    """Write positions on a primary that fails every note."""

    def wrote(self, caller: str) -> None:
        raise OSError("the primary blinked")

    def last_write(self, caller: str) -> str | None:
        return None


@pytest.fixture
def blocking() -> Iterator[BlockingRunner]:
    runner = BlockingRunner(workers=1)
    yield runner
    runner.close()


def _routing(blocking: BlockingRunner, now: list[float]) -> ReadRouting:
    positions = cast(WritePositions, _Blinking())
    return ReadRouting(positions, blocking, max_lag=30.0, clock=lambda: now[0])


async def _routed(reads: ReadRouting, caller: str) -> bool:
    """Whether `caller`'s read may go to a replica."""

    async def read() -> Any:
        route = current_route()
        return route is not None and not route.primary_only

    return bool(await reads.read(caller, read))


async def test_a_caller_whose_write_was_not_noted_reads_on_the_primary_for_the_lag_bound(
    blocking: BlockingRunner,
) -> None:
    now = [100.0]
    reads = _routing(blocking, now)
    await reads.wrote("alice")
    assert not await _routed(reads, "alice")
    assert await _routed(reads, "bob")
    now[0] += 31.0
    assert await _routed(reads, "alice")


async def test_failing_to_note_writes_logs_one_line_per_caller_and_period(
    blocking: BlockingRunner, caplog: pytest.LogCaptureFixture
) -> None:
    reads = _routing(blocking, [0.0])
    with caplog.at_level(logging.WARNING, logger="application.operations.read_routing"):
        for _ in range(3):
            await reads.wrote("alice")
    assert len(caplog.records) == 1
    assert "alice" in caplog.records[0].getMessage()
