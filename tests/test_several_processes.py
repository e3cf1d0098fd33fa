"""Several `tracepoint serve` processes on one PostgreSQL database, as behind a load
balancer: what one process writes, another reads; page tokens, flows, identifier jobs and
sign-in limits work across them.

The processes are the real console script, started once for the module on free ports,
with one database of their own on the shared test server (created and dropped here).
"""

import asyncio
import contextlib
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import orjson
import pytest

from tests.conftest import ADMIN_TOKEN, AS_CAPTURED, AUTH, run_database
from tests.epcis.documents import document, object_event
from tests.flows.partner import Partner, running_partner
from tests.services import free_port

#: The processes are started once: every test of the module runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("several-processes")


#: Failed sign-ins one client address may make per minute, in all processes together.
LOGIN_LIMIT = 4
CONSOLE_SCRIPT = Path(sys.executable).parent / "tracepoint"


@dataclass
class Process:
    """One running `tracepoint serve`."""

    url: str
    popen: "subprocess.Popen[bytes]"
    log: Path


def _environment(database_url: str, port: int) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPOINT_")}
    environment.update(
        {
            "TRACEPOINT_DATABASE_URL": database_url,
            "TRACEPOINT_PORT": str(port),
            # No TRACEPOINT_SECRET: the processes must agree on the one kept in the database.
            "TRACEPOINT_ADMIN_EMAIL": "admin@example.com",
            "TRACEPOINT_ADMIN_PASSWORD": "correct horse battery staple",
            "TRACEPOINT_ADMIN_TOKEN": ADMIN_TOKEN,
            "TRACEPOINT_CAPTURE_WORKERS": "0",
            "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
            "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
            "TRACEPOINT_OUTBOUND_ALLOW_LIST": "127.0.0.0/8",
            "TRACEPOINT_PROJECTION_POLL_INTERVAL": "0.2",
            "TRACEPOINT_FLOW_POLL_INTERVAL": "0.2",
            "TRACEPOINT_CODE_WORKER_INTERVAL": "0.2",
            "TRACEPOINT_CODE_CHUNK_SIZE": "100",
            "TRACEPOINT_LOGIN_FAILURES_PER_MINUTE": str(LOGIN_LIMIT),
        }
    )
    return environment


def _wait_until_serving(process: Process, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(f"{process.url} exited:\n{process.log.read_text()}")
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"{process.url}/server/ping", timeout=1) as answer,
        ):
            if answer.status == 200:
                return
        time.sleep(0.1)
    raise TimeoutError(f"{process.url} did not start:\n{process.log.read_text()}")


@pytest.fixture(scope="module")
def processes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Process]]:
    """Three services started together on one new database."""
    database = run_database("processes")
    logs = tmp_path_factory.mktemp("processes")
    started: list[Process] = []
    try:
        for index in range(3):
            port = free_port()
            log = logs / f"serve-{index}.log"
            # The child keeps its own copy of the file: ours is closed at once.
            with log.open("wb") as output:
                popen = subprocess.Popen(
                    [str(CONSOLE_SCRIPT), "serve"],
                    env=_environment(database, port),
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            started.append(Process(f"http://127.0.0.1:{port}", popen, log))
        for process in started:
            _wait_until_serving(process)
        yield started
    finally:
        for process in started:
            process.popen.terminate()
        for process in started:
            try:
                process.popen.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.popen.kill()
                process.popen.wait()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


async def _capture(http: aiohttp.ClientSession, process: Process, *events: Any) -> None:
    async with http.post(
        f"{process.url}/v2/epcis/capture",
        data=orjson.dumps(document(*events)),
        headers={**AUTH, "Content-Type": "application/json"},
    ) as response:
        assert response.status == 201, await response.text()


async def _events(
    http: aiohttp.ClientSession, process: Process, params: dict[str, str]
) -> tuple[list[dict[str, Any]], str | None]:
    """One page of events and the next page's token, if any."""
    async with http.get(
        f"{process.url}/v2/epcis/events", params=params, headers=AS_CAPTURED
    ) as response:
        assert response.status == 200, await response.text()
        body = await response.json()
        link = response.headers.get("Link")
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    token = None
    if link:
        target = link.split(";")[0].strip("<> ")
        token = parse_qs(urlsplit(target).query)["nextPageToken"][0]
    return events, token


async def _json(
    http: aiohttp.ClientSession, process: Process, method: str, path: str, body: Any = None
) -> Any:
    async with http.request(method, f"{process.url}{path}", json=body, headers=AUTH) as response:
        assert response.status < 300, f"{response.status} {await response.text()}"
        return (await response.json())["data"] if response.status != 204 else None


async def _soon(condition: Callable[[], Any], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await condition():
            return True
        await asyncio.sleep(0.1)
    return bool(await condition())


def _epc() -> str:
    return f"urn:epc:id:sgtin:4012345.011111.{secrets.randbelow(10**9)}"


async def test_an_event_captured_by_one_process_is_read_at_once_by_another(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    a, b, c = processes
    for writer, reader in ((a, b), (b, c), (c, a)):
        epc = _epc()
        await _capture(http, writer, object_event(epcList=[epc]))
        found, _ = await _events(http, reader, {"MATCH_epc": epc})
        assert [e["epcList"] for e in found] == [[epc]]


async def test_a_page_token_from_one_process_turns_the_page_on_another(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    a, b, c = processes
    location = f"urn:epc:id:sgln:4012345.{secrets.randbelow(10**5):05d}.0"
    epcs = [_epc() for _ in range(3)]
    located = [object_event(epcList=[e], bizLocation={"id": location}) for e in epcs]
    await _capture(http, a, *located)
    seen: list[str] = []
    query = {"EQ_bizLocation": location, "perPage": "1"}
    page, token = await _events(http, a, query)
    seen += [e["epcList"][0] for e in page]
    for process in (b, c):
        assert token is not None
        page, token = await _events(http, process, {**query, "nextPageToken": token})
        seen += [e["epcList"][0] for e in page]
    assert sorted(seen) == sorted(epcs)
    assert token is None


async def test_a_flow_runs_in_one_process_and_delivers_each_event_once(
    processes: list[Process], http: aiohttp.ClientSession, partner: Partner
) -> None:
    a, b, c = processes
    step = f"urn:example:step:{secrets.token_hex(4)}"
    connection = await _json(
        http, a, "POST", "/items/epcis_connection", {"name": "partner", "url": partner.url}
    )
    name = "q" + connection["id"][:8]
    query = {"name": name, "query": {"EQ_bizStep": [step]}}
    await _json(http, b, "POST", "/items/epcis_queries", query)
    await _json(
        http,
        c,
        "POST",
        "/items/epcis_outbound_flow",
        {"connection": connection["id"], "epcis_query": name, "interval_seconds": 1},
    )
    epcs = [_epc() for _ in range(12)]
    for index, epc in enumerate(epcs):
        await _capture(http, processes[index % 3], object_event(epcList=[epc], bizStep=step))

    async def delivered() -> bool:
        return len(partner.events) >= len(epcs)

    assert await _soon(delivered)
    await asyncio.sleep(2.5)  # two more intervals: nothing is sent again
    received = [e["epcList"][0] for e in partner.events]
    assert sorted(received) == sorted(epcs)


async def test_an_identifier_job_is_made_once_by_processes_that_all_do_background_work(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    a, b, c = processes
    gtin = "09506000134352"
    product = await _json(http, a, "POST", "/items/product", {"gtin": gtin})
    job = await _json(
        http, b, "POST", "/items/identifier_job", {"product": product["id"], "quantity": 1000}
    )
    path = f"/items/unique_code?limit=-1&fields=code&filter[identifier_job][_eq]={job['id']}"

    async def complete() -> bool:
        # Whether "complete" is only said once every code is readable is another
        # specification's business; this one waits for both.
        now = await _json(http, c, "GET", f"/items/identifier_job/{job['id']}")
        return bool(now["status"] == "complete") and len(await _json(http, a, "GET", path)) >= 1000

    assert await _soon(complete, 30.0)
    await asyncio.sleep(0.5)  # had a second process made codes too, they would show now
    done = await _json(http, c, "GET", f"/items/identifier_job/{job['id']}")
    codes = await _json(http, a, "GET", path)
    assert done["quantity_created"] == 1000
    assert len(codes) == len({c["code"] for c in codes}) == 1000


async def test_failed_sign_ins_are_counted_across_processes(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    statuses = []
    for index in range(LOGIN_LIMIT + 2):
        async with http.post(
            f"{processes[index % 3].url}/auth/login",
            json={"email": "nobody@example.com", "password": "wrong"},
            # One client address for all three (the processes see 127.0.0.1 anyway).
        ) as response:
            statuses.append(response.status)
    assert statuses == [401] * LOGIN_LIMIT + [429, 429]


async def test_a_websocket_on_one_process_streams_events_captured_by_another(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    a, b, _ = processes
    step = f"urn:example:step:{secrets.token_hex(4)}"
    name = "stream" + secrets.token_hex(4)
    async with http.post(
        f"{a.url}/v2/epcis/queries",
        data=orjson.dumps({"name": name, "query": {"EQ_bizStep": [step]}}),
        headers={**AUTH, "Content-Type": "application/json"},
    ) as response:
        assert response.status == 201, await response.text()
    async with http.ws_connect(
        f"{a.url}/v2/epcis/queries/{name}/events", headers=AS_CAPTURED
    ) as socket:
        await asyncio.sleep(1.0)  # the stream has fixed where it starts
        epc = _epc()
        await _capture(http, b, object_event(epcList=[epc], bizStep=step))
        message = await socket.receive(timeout=10)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        events = orjson.loads(message.data)["epcisBody"]["queryResults"]["resultsBody"]
        assert [e["epcList"] for e in events["eventList"]] == [[epc]]


async def test_a_webhook_subscription_gets_each_event_once_whichever_process_captured_it(
    processes: list[Process], http: aiohttp.ClientSession, partner: Partner
) -> None:
    a, _, _ = processes
    step = f"urn:example:step:{secrets.token_hex(4)}"
    name = "hook" + secrets.token_hex(4)
    for path, body in (
        ("/v2/epcis/queries", {"name": name, "query": {"EQ_bizStep": [step]}}),
        (f"/v2/epcis/queries/{name}/subscriptions", {"dest": partner.url, "stream": True}),
    ):
        async with http.post(
            f"{a.url}{path}",
            data=orjson.dumps(body),
            headers={**AS_CAPTURED, "Content-Type": "application/json"},
        ) as response:
            assert response.status == 201, await response.text()
    epcs = [_epc() for _ in range(9)]
    for index, epc in enumerate(epcs):
        await _capture(http, processes[index % 3], object_event(epcList=[epc], bizStep=step))

    def received() -> list[str]:
        results = [d["epcisBody"]["queryResults"]["resultsBody"] for d in partner.documents]
        return [e["epcList"][0] for r in results for e in r["eventList"]]

    async def delivered() -> bool:
        return len(received()) >= len(epcs)

    assert await _soon(delivered)
    await asyncio.sleep(1.5)  # more polls of every process: nothing is sent again
    assert sorted(received()) == sorted(epcs)


async def test_a_permission_removed_through_one_process_is_refused_by_the_others_soon_after(
    processes: list[Process], http: aiohttp.ClientSession
) -> None:
    a, b, c = processes
    policy = await _json(http, a, "POST", "/policies", {"name": "p" + secrets.token_hex(3)})
    permission = await _json(
        http,
        a,
        "POST",
        "/permissions",
        {"policy": policy["id"], "collection": "epcis_event", "action": "read"},
    )
    token = "partner-" + secrets.token_hex(12)
    email = f"partner-{secrets.token_hex(4)}@example.com"
    user = {"email": email, "token": token, "policies": [{"policy": policy["id"]}]}
    await _json(http, a, "POST", "/users", user)

    async def status(process: Process) -> int:
        async with http.get(
            f"{process.url}/v2/epcis/events", headers={"Authorization": f"Bearer {token}"}
        ) as response:
            return response.status

    # Each process has resolved the partner and keeps what it may do.
    assert [await status(p) for p in processes] == [200, 200, 200]
    await _json(http, c, "DELETE", f"/permissions/{permission['id']}")
    assert await status(c) == 403

    async def refused_everywhere() -> bool:
        return [await status(p) for p in (a, b)] == [403, 403]

    # The processes poll the log every 0.2 s.
    assert await _soon(refused_everywhere, seconds=5.0)
