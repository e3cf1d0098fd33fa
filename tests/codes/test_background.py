"""The background worker runs jobs and reservations without being asked."""

import asyncio

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.codes.helpers import job, product
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The timer on, slow enough that only waking explains a quick finish."""
    return make_settings(database_url, background_work=True, code_worker_interval=3600)


async def test_a_new_job_is_run_by_the_background_worker(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    created = await job(client, product=key, quantity=20)
    for _ in range(200):
        current = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
        if current["status"] == "complete":
            break
        await asyncio.sleep(0.05)
    assert current["status"] == "complete"
    reservation = await ok(client, "POST", "/items/code_reservation", {"quantity": 5})
    for _ in range(200):
        current = await ok(client, "GET", f"/items/code_reservation/{reservation['id']}")
        if current["status"] == "complete":
            break
        await asyncio.sleep(0.05)
    assert current["quantity_reserved"] == 5
