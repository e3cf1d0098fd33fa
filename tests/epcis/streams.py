"""WebSocket streams of named queries in tests: opened once they wait for new events."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from aiohttp import ClientWebSocketResponse, WSMsgType
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from tests.conftest import NEVER_TRANSLATES


@asynccontextmanager
async def listening_stream(
    tracepoint: Tracepoint,
    client: TestClient[Any, Any],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    headers: dict[str, str],
) -> AsyncIterator[ClientWebSocketResponse]:
    """A WebSocket on the named query `name`, opened with `headers`, once it waits for
    new events: from then on every capture is new to it."""
    # Once the stream has fixed where it starts and found nothing, it waits for the read
    # models to change.
    listening = asyncio.Event()
    next_change = tracepoint.follower.next_change

    async def noted(seconds: float, every: float = 0.05) -> None:
        listening.set()
        await next_change(seconds, every)

    monkeypatch.setattr(tracepoint.follower, "next_change", noted)
    socket = await client.ws_connect(f"/v2/epcis/queries/{name}/events", headers=headers)
    try:
        await asyncio.wait_for(listening.wait(), 30)
        yield socket
    finally:
        await socket.close()


async def next_message(socket: ClientWebSocketResponse) -> str:
    """The text of the next document the stream sends."""
    message = await socket.receive(timeout=30)
    assert message.type == WSMsgType.TEXT, message
    return str(message.data)


async def next_streamed(socket: ClientWebSocketResponse) -> list[dict[str, Any]]:
    """The events of the next (JSON) document the stream sends."""
    document = orjson.loads(await next_message(socket))
    events: list[dict[str, Any]] = document["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return events


def as_captured_for(token: str) -> dict[str, str]:
    """The headers of a stream for the holder of `token` that sends events as captured."""
    return {"Authorization": f"Bearer {token}", **NEVER_TRANSLATES}
