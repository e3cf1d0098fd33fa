"""Scans kept per client address are limited; codes resolve all the same."""

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.codes.helpers import codes_of, finished_job, product
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Two scans kept per address and minute."""
    return make_settings(database_url, scans_per_minute=2)


async def test_scans_past_the_limit_resolve_but_are_not_kept(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client)
    path = "/" + one["digital_link"].split("/", 3)[3]
    for _ in range(4):
        response = await client.get(path, allow_redirects=False)
        assert response.status == 200
    assert len(await ok(client, "GET", "/items/code_scan")) == 2
    # Unassigned: each kept scan made one result, the others none.
    assert len(await ok(client, "GET", "/items/integrity_check_result")) == 2
