"""Heads are signed on a timer, one each interval in which the log grew."""

import asyncio

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client
from tests.audit.helpers import capture
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The timer on, every fifth of a second."""
    return make_settings(database_url, background_work=True, audit_head_interval=0.2)


async def _sizes_after(tracepoint: Tracepoint, seconds: float) -> list[int]:
    await asyncio.sleep(seconds)
    heads = await tracepoint.blocking.run(tracepoint.audit.heads.tree.heads, 100)
    return [h.tree_size for h in heads]


async def test_a_head_is_signed_when_the_log_grew_and_not_again_until_it_grows(
    tracepoint: Tracepoint, client: Client
) -> None:
    await capture(client, 1)
    size = tracepoint.audit.heads.tree.size()
    for _ in range(50):
        sizes = await _sizes_after(tracepoint, 0.1)
        if sizes and sizes[0] == size:
            break
    assert sizes[0] == size
    assert await _sizes_after(tracepoint, 0.6) == sizes
    await capture(client, 2)
    for _ in range(50):
        grown = await _sizes_after(tracepoint, 0.1)
        if len(grown) > len(sizes):
            break
    assert grown == [tracepoint.audit.heads.tree.size(), *sizes]
