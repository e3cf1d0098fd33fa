"""The code pool (spec §1 rule 4): codes ordered by the service, not by users."""

import json

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.codes.helpers import GTIN, codes_of, product
from tests.codes.test_reservations import reserve
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """A service that keeps a pool of sgtin codes of the product made by `pooled`."""
    pools = [{"type": "sgtin", "product": "/01/" + GTIN, "minimum": 20, "batch": 50}]
    return make_settings(database_url, code_pools=json.dumps(pools), code_chunk_size=16)


async def test_the_pool_orders_codes_when_it_falls_below_its_minimum(
    tracepoint: Tracepoint, client: Client
) -> None:
    await product(client)
    await tracepoint.codes.work.refill_pools()
    jobs = await ok(client, "GET", "/items/identifier_job")
    assert [(j["quantity"], j["status"]) for j in jobs] == [(50, "complete")]
    assert len(await codes_of(client, status="unassigned")) == 50
    await tracepoint.codes.work.refill_pools()
    assert len(await ok(client, "GET", "/items/identifier_job")) == 1


async def test_a_reservation_beyond_the_pool_has_its_codes_generated_first(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    done = await reserve(tracepoint, client, product=key, quantity=70)
    assert done["status"] == "complete", done
    assert done["quantity_reserved"] == 70


async def test_a_pool_whose_last_job_failed_orders_no_more(
    tracepoint: Tracepoint, client: Client
) -> None:
    # The pool's product does not exist: its job fails, and so would every next one.
    await tracepoint.codes.work.refill_pools()
    await tracepoint.codes.work.refill_pools()
    [failed] = await ok(client, "GET", "/items/identifier_job")
    assert failed["status"] == "error"
    assert "does not exist" in failed["error_message"]
