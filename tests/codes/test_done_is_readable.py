"""What a job's or a reservation's status and counters say is done is readable as soon
as they say it, however far behind the codes' read model is (docs/codes.md)."""

import asyncio
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from domain.codes.chunk import CodeChunk
from infrastructure.settings import Settings
from projections.codes.unique_codes import UniqueCodesProjection
from tests.access.helpers import Client, ok
from tests.codes.helpers import codes_of, finished_job, job, product
from tests.conftest import AUTH, make_settings
from tests.paused_projection import PausedProjection


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Chunks of 10 codes, so a job of 20 has two."""
    return make_settings(database_url, code_chunk_size=10)


def last_chunk(event: Any) -> bool:
    return isinstance(event, CodeChunk.Generated) and event.offset == 10


async def test_a_job_counts_only_codes_that_can_be_listed(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await job(client, product=await product(client), quantity=20)
    paused = PausedProjection(monkeypatch, UniqueCodesProjection, last_chunk)
    work = asyncio.create_task(tracepoint.codes.work.run())
    await paused.reached()
    seen = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    listed = await codes_of(client, identifier_job=created["id"])
    paused.release()
    await work
    assert len(listed) == seen["quantity_created"]


async def test_a_job_that_reads_complete_has_every_code_listed(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await job(client, product=await product(client), quantity=20)
    paused = PausedProjection(monkeypatch, UniqueCodesProjection, last_chunk)
    work = asyncio.create_task(tracepoint.codes.work.run())
    await paused.reached()
    seen = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    listed = await codes_of(client, identifier_job=created["id"])
    paused.release()
    await work
    assert seen["status"] != "complete" or len(listed) == 20
    done = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert done["status"] == "complete"
    assert len(await codes_of(client, identifier_job=created["id"])) == 20


async def test_a_job_run_by_another_process_reads_complete_only_with_its_codes(
    tracepoint: Tracepoint, client: Client, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = await job(client, product=await product(client), quantity=20)
    paused = PausedProjection(monkeypatch, UniqueCodesProjection, last_chunk)
    other = Tracepoint(settings)
    await other.start()
    try:
        work = asyncio.create_task(other.codes.work.run())
        await paused.reached()
        # Read through this process, which neither wrote nor projects the chunk.
        seen = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
        listed = await codes_of(client, identifier_job=created["id"])
        paused.release()
        await work
    finally:
        paused.release()
        await other.stop()
    assert len(listed) == seen["quantity_created"]


async def test_a_reservation_counts_only_codes_that_read_as_its_own(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=20)
    paused = PausedProjection(
        monkeypatch, UniqueCodesProjection, lambda e: isinstance(e, CodeChunk.Changed)
    )
    created = await ok(client, "POST", "/items/code_reservation", {"product": key, "quantity": 12})
    work = asyncio.create_task(tracepoint.codes.work.run())
    await paused.reached()
    seen = await ok(client, "GET", f"/items/code_reservation/{created['id']}")
    listed = await codes_of(client, reservation=created["id"])
    paused.release()
    await work
    assert len(listed) == (seen["quantity_reserved"] or 0)


async def test_a_complete_reservation_has_its_codes_and_export_file_readable(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=20)
    created = await ok(client, "POST", "/items/code_reservation", {"product": key, "quantity": 12})
    await tracepoint.codes.work.run()
    done = await ok(client, "GET", f"/items/code_reservation/{created['id']}")
    assert done["status"] == "complete"
    assert len(await codes_of(client, reservation=created["id"])) == 12
    response = await client.get(f"/assets/{done['export_file']}", headers=AUTH)
    assert response.status == 200
    assert len((await response.read()).decode().strip().splitlines()) >= 12
