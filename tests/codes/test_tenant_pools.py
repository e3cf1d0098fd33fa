"""Pools of a multi-tenant installation keep codes for their account."""

import json

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.codes.test_reservations import reserve
from tests.conftest import make_settings

ACCOUNT = "7d0c9d43-52a8-4f7e-9a3e-2b2d1c5e6f70"


@pytest.fixture
def settings(database_url: str) -> Settings:
    """A multi-tenant installation with a pool of short codes for one account."""
    pools = [{"type": "short_code", "minimum": 5, "batch": 10, "account": ACCOUNT}]
    return make_settings(
        database_url, multi_tenant=True, code_pools=json.dumps(pools), code_chunk_size=4
    )


async def test_a_tenants_reservation_gets_codes_from_its_accounts_pool(
    tracepoint: Tracepoint, client: Client
) -> None:
    await ok(client, "POST", "/items/account", {"id": ACCOUNT, "name": "A"})
    # As the admin, for the account: the admin's items name their account explicitly.
    done = await reserve(tracepoint, client, code_type="short_code", quantity=12, account=ACCOUNT)
    assert done["status"] == "complete", done
    assert {c["account"] for c in done["codes"]} == {ACCOUNT}
    jobs = await ok(client, "GET", "/items/identifier_job")
    assert {j["account"] for j in jobs} == {ACCOUNT}
