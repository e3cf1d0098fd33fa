"""Flows and subscriptions deliver on their own, on the background timer."""

import asyncio
from collections.abc import AsyncIterator, Callable

import orjson
import pytest

from infrastructure.settings import Settings
from tests.access.helpers import Client
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import object_event
from tests.flows.helpers import capture, flow_to
from tests.flows.partner import Partner, running_partner


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The background timers on."""
    return make_settings(database_url, background_work=True, flow_poll_interval=0.2)


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


async def soon(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Whether `condition` holds within `seconds`."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()


async def test_a_flow_delivers_without_being_asked(client: Client, partner: Partner) -> None:
    await flow_to(client, partner.url, {"EQ_bizStep": ["shipping"]}, interval_seconds=1)
    await capture(client, object_event())
    assert await soon(lambda: len(partner.documents) == 1)


async def test_a_stream_subscription_delivers_without_being_asked(
    client: Client, partner: Partner
) -> None:
    response = await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps({"name": "all", "query": {"EQ_bizStep": ["shipping"]}}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 201
    response = await client.post(
        "/v2/epcis/queries/all/subscriptions",
        data=orjson.dumps({"dest": partner.url, "stream": True}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 201
    await capture(client, object_event())
    assert await soon(lambda: len(partner.documents) == 1)
