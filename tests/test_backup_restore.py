"""The backup of docs/operations.md: `pg_dump` of the event store (and the few tables
outside it that cannot be rebuilt), restored into an empty database, then
`tracepoint replay`, gives back the service as it was."""

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from yarl import URL

from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.access.helpers import ok
from tests.conftest import AS_CAPTURED, _require_postgres, make_settings, run_database
from tests.epcis.documents import object_event
from tests.flows.helpers import capture

#: The tables docs/operations.md tells to back up: the event store, the installation's
#: secret, and the sign-in sessions (the read models are rebuilt from the event store).
BACKED_UP = ("tracepoint_events", "tracepoint_instance", "auth_sessions", "auth_otp_steps")


@pytest.fixture
def databases() -> tuple[str, str]:
    """Two new, empty databases: the one backed up and the one restored into."""
    _require_postgres()
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore are not installed")
    return run_database("backup_from"), run_database("backup_to")


async def _page(client: TestClient[Any, Any], **params: str) -> tuple[list[Any], str]:
    response = await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
    assert response.status == 200, await response.text()
    events = (await response.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return [e["epcList"][0] for e in events], response.headers.get("Link", "")


def _back_up_and_restore(source: str, target: str, dump: Path) -> None:
    """The commands of docs/operations.md: dump, restore into an empty database, replay."""
    tables = [f"--table={t}" for t in BACKED_UP]
    subprocess.run(["pg_dump", "--format=custom", *tables, f"--file={dump}", source], check=True)
    subprocess.run(["pg_restore", "--no-owner", f"--dbname={target}", str(dump)], check=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPOINT_")}
    environment.update({"TRACEPOINT_DATABASE_URL": target, "TRACEPOINT_CAPTURE_WORKERS": "0"})
    replay = subprocess.run(
        [str(Path(sys.executable).parent / "tracepoint"), "replay"],
        env=environment,
        capture_output=True,
        text=True,
    )
    assert replay.returncode == 0, replay.stdout + replay.stderr


async def test_a_dump_of_the_event_store_and_a_replay_restore_the_service(
    databases: tuple[str, str], aiohttp_client: Any, tmp_path: Path
) -> None:
    source, target = databases
    # No secret in the settings: the generated one, kept in the database, must survive.
    before = Tracepoint(make_settings(source, secret=None))
    await before.start()
    try:
        client = await aiohttp_client(create_app(before, manage_lifecycle=False))
        epcs = [f"urn:epc:id:sgtin:4012345.011111.{n}" for n in (1, 2)]
        await capture(client, *(object_event(epcList=[e]) for e in epcs))
        product = await ok(client, "POST", "/items/product", {"gtin": "09506000134352"})
        _, link = await _page(client, perPage="1")
        next_page = URL(link.split(";")[0].strip("<>")).path_qs
    finally:
        await before.stop()

    await asyncio.to_thread(_back_up_and_restore, source, target, tmp_path / "tracepoint.dump")

    after = Tracepoint(make_settings(target, secret=None))
    await after.start()
    try:
        client = await aiohttp_client(create_app(after, manage_lifecycle=False))
        found, _ = await _page(client)
        assert sorted(found) == epcs
        # The log goes on where it stopped.
        later = "urn:epc:id:sgtin:4012345.011111.3"
        await capture(client, object_event(epcList=[later]))
        found, _ = await _page(client)
        assert sorted(found) == [*epcs, later]
        assert (await ok(client, "GET", f"/items/product/{product['id']}"))["gtin"] == (
            "09506000134352"
        )
        # A page token made before the backup still turns the page: the secret came back.
        response = await client.get(next_page, headers=AS_CAPTURED)
        assert response.status == 200, await response.text()
    finally:
        await after.stop()
