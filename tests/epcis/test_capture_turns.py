"""A capture stamps its record time once it holds the log's write turn, so that record
times grow with log positions across processes too (docs/scaling.md): a client polling
`GE_recordTime` never misses a capture that committed after one it has seen."""

import asyncio
import time
from datetime import datetime
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]

#: How long the other process keeps the turn while the capture waits for it.
HELD = 0.5


async def test_a_capture_that_waits_for_the_turn_stamps_its_record_time_once_it_has_it(
    client: TestClient[Any, Any], settings: Settings
) -> None:
    other = Tracepoint(settings)  # another process's service on the same database
    try:
        with other.database.transaction() as conn:
            other.store.lock_within(conn)  # an append of its own holds the turn
            waiting = asyncio.create_task(capture(client, document(object_event())))
            await asyncio.sleep(HELD)
            assert not waiting.done()
            released = time.time()
        response = await waiting
    finally:
        other.close()
    assert response.status == 201, await response.text()
    [stored] = await events(client)
    stamped = datetime.fromisoformat(stored["recordTime"].replace("Z", "+00:00")).timestamp()
    # Record times are given to the millisecond.
    assert stamped >= released - 0.001
