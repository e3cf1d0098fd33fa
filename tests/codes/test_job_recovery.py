"""Identifier jobs that stop midway resume without duplicates or gaps, and two services
sharing one database run each job once."""

import asyncio
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from domain.codes.chunk import CodeChunk
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.codes.helpers import codes_of, job, product
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Chunks of 10 codes, so a small job has several."""
    return make_settings(database_url, code_chunk_size=10)


class Crash(Exception):
    """The process died."""


async def test_progress_is_saved_chunk_by_chunk(tracepoint: Tracepoint, client: Client) -> None:
    key = await product(client)
    created = await job(client, product=key, quantity=35)
    await tracepoint.codes.work.run()
    revisions = await ok(
        client,
        "GET",
        "/revisions",
        params={"filter[collection][_eq]": "identifier_job", "sort": "id", "limit": "-1"},
    )
    progress = [r["delta"].get("quantity_created") for r in revisions if r["item"] == created["id"]]
    assert [p for p in progress if p] == [10, 20, 30, 35]


async def test_a_job_that_crashed_midway_resumes_without_duplicates_or_gaps(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = await product(client)
    created = await job(client, product=key, quantity=45)
    save = tracepoint.store.save
    chunks_saved = 0

    def dying_save(*items: Any) -> int:
        nonlocal chunks_saved
        if any(isinstance(i, CodeChunk) for i in items):
            if chunks_saved == 2:
                raise Crash()
            chunks_saved += 1
        return save(*items)

    monkeypatch.setattr(tracepoint.store, "save", dying_save)
    with pytest.raises(Crash):
        await tracepoint.blocking.run(tracepoint.codes.jobs.run, created["id"])
    monkeypatch.setattr(tracepoint.store, "save", save)
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
    halfway = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert (halfway["status"], halfway["quantity_created"]) == ("in_progress", 20)
    await tracepoint.codes.work.run()
    done = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert (done["status"], done["quantity_created"]) == ("complete", 45)
    codes = await codes_of(client, identifier_job=created["id"])
    assert len(codes) == len({c["code"] for c in codes}) == 45


async def test_two_services_on_one_database_run_a_job_once(
    tracepoint: Tracepoint, client: Client, settings: Settings
) -> None:
    key = await product(client)
    created = await job(client, product=key, quantity=200)
    other = Tracepoint(settings)
    await other.start()
    try:
        await asyncio.gather(tracepoint.codes.work.run(), other.codes.work.run())
    finally:
        await other.stop()
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
    done = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert (done["status"], done["quantity_created"]) == ("complete", 200)
    codes = await codes_of(client, identifier_job=created["id"])
    assert len(codes) == len({c["code"] for c in codes}) == 200


async def test_a_stopping_service_leaves_a_job_to_resume_after_its_current_chunk(
    tracepoint: Tracepoint, client: Client, settings: Settings
) -> None:
    key = await product(client)
    created = await job(client, product=key, quantity=30)
    tracepoint.codes.jobs.stop()
    await tracepoint.codes.work.run()
    untouched = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert (untouched["status"], untouched["quantity_created"]) == ("new", 0)
    other = Tracepoint(settings)
    await other.start()
    try:
        await other.codes.work.run()
    finally:
        await other.stop()
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
    done = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    assert (done["status"], done["quantity_created"]) == ("complete", 30)
