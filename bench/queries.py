"""Query latency with millions of events stored: over HTTP, and the reader's SQL alone.

Each query is asked `runs` times over HTTP with fresh parameters, from a client in a
process of its own (`bench/query_client.py`: in the service's process its requests and
its reading of the answers would take the service's interpreter lock, as no real
client's do), then the same parameters are run straight through the event reader
(`snapshot_and_page`: the snapshot and the page on one connection, the SQL a request
runs for its events), and then over HTTP once more: the difference between the last two
is what the API adds per request (routing, signing in, the caller's rights, parsing,
writing the answer). Both read pages the first run brought into memory; the first run's
figures are the latencies, and beside them its SQL alone would have read warmer pages
than it did (at a million events that made the API seem to add up to 1.6 ms more). The
service's CPU a request is measured over the first run, which a busy host inflates less
than the wall clock.
"""

import asyncio
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from application.access.event_scope import rule_scope
from application.service.runtime import Tracepoint
from bench.generator import CARRIERS, EventFactory
from bench.harness import TOKEN, process_cpu, serving, settings
from bench.loading import Loaded, load
from bench.query_client import WARM_UP
from bench.trace import settle
from domain.epcis.event_query import EventQuery

#: Which of the generator's sites the partner's read rule allows (its only one).
PARTNER_SITE = 0

Params = Callable[[], dict[str, str]]


@dataclass(frozen=True)
class QueryFigures:
    """p50 and p95 in milliseconds over HTTP, and of the reader's SQL for the same queries."""

    p50: float
    p95: float
    sql_p50: float
    sql_p95: float
    #: The service process's CPU milliseconds a request (all its threads).
    cpu: float = 0.0
    #: p50 over HTTP of the same requests again, after the SQL alone: pages as warm as
    #: the SQL's, what the API's overhead is taken against.
    again_p50: float = 0.0


def _percentiles(timings: list[float]) -> tuple[float, float]:
    timings = sorted(timings)
    return statistics.median(timings), timings[max(0, int(len(timings) * 0.95) - 1)]


def _queries(factory: EventFactory, loaded: Loaded) -> dict[str, tuple[Params, bool]]:
    """Each query's parameters, and whether the partner asks it (else the admin)."""
    rng = factory.random

    def window(hours: int) -> dict[str, str]:
        start = factory.start.timestamp() + rng.uniform(0, factory.span_seconds - hours * 3600)
        return {
            "GE_eventTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start)),
            "LT_eventTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + hours * 3600)),
        }

    def pattern() -> dict[str, str]:
        head, _, _ = rng.choice(loaded.epcs).rpartition(".")
        return {"MATCH_epc": head.replace(":id:", ":idpat:") + ".*"}

    def place() -> str:
        return rng.choice(factory.locations)

    return {
        "1-hour eventTime window": (lambda: window(1), False),
        "EQ_bizStep": (lambda: {"EQ_bizStep": rng.choice(["shipping", "receiving"])}, False),
        "MATCH_epc exact": (lambda: {"MATCH_epc": rng.choice(loaded.epcs)}, False),
        "MATCH_epc pattern": (pattern, False),
        "ILMD lot number": (lambda: {"EQ_ILMD_cbvmda:lotNumber": rng.choice(loaded.lots)}, False),
        "extension field": (lambda: {"EQ_ex:carrier": rng.choice(CARRIERS)}, False),
        "sensor type + value (FAH)": (
            lambda: {"EQ_type": "Temperature", "GE_value_FAH": str(rng.randint(68, 85))},
            False,
        ),
        # Ordered by an extension field's number: over every event, and over one carrier's.
        "orderBy extension field": (lambda: {"orderBy": "ex:weight"}, False),
        "carrier, orderBy field": (
            lambda: {
                "EQ_ex:carrier": rng.choice(CARRIERS),
                "orderBy": "ex:weight",
                "orderDirection": rng.choice(["ASC", "DESC"]),
            },
            False,
        ),
        # A site's day, a step's hour: the pairs the composite indexes serve.
        "bizLocation + 1-day window": (lambda: {"EQ_bizLocation": place(), **window(24)}, False),
        "readPoint + 1-day window": (lambda: {"EQ_readPoint": place(), **window(24)}, False),
        "bizStep + 1-hour window": (
            lambda: {"EQ_bizStep": rng.choice(["shipping", "receiving"]), **window(1)},
            False,
        ),
        # A partner whose read rule is one site: its newest page, and a day of it.
        "partner (one site)": (dict, True),
        "partner, 1-day window": (lambda: window(24), True),
    }


async def _partner(session: aiohttp.ClientSession, base: str, rule: dict[str, Any]) -> str:
    """A user whose one policy reads the events `rule` allows; its static token."""

    async def post(path: str, body: Any) -> Any:
        async with session.post(f"{base}{path}", json=body) as response:
            if response.status >= 300:
                raise RuntimeError(f"{path}: {response.status} {await response.text()}")
            return (await response.json())["data"]

    policy = await post("/policies", {"name": "bench partner"})
    await post(
        "/permissions",
        {
            "policy": policy["id"],
            "collection": "epcis_event",
            "action": "read",
            "permissions": rule,
        },
    )
    # Fresh names: a database may be measured more than once.
    name = secrets.token_hex(4)
    token = f"bench-partner-{name}"
    await post(
        "/users",
        {
            "email": f"partner-{name}@example.com",
            "password": "bench-partner-password",
            "token": token,
            "policies": [{"policy": policy["id"]}],
        },
    )
    return token


def database_bytes(service: Tracepoint, database_url: str) -> int:
    """What the database takes on disk: PostgreSQL's database size, SQLite's files."""
    if service.database.dialect.name == "postgresql":
        with service.database.reading() as conn:
            return int(conn.fetchval("SELECT pg_database_size(current_database())"))
    path = Path(database_url.removeprefix("sqlite:///"))
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


async def loaded(service: Tracepoint, database_url: str, count: int) -> Loaded:
    """Capture `count` events into the started `service` and settle the database; print the
    load rate and the bytes on disk per event."""
    stored = await load(service, count)
    print(
        f"    loaded {count:,} events in {stored.seconds:.0f} s"
        f" ({count / stored.seconds:,.0f} events/s, through capture without HTTP)",
        flush=True,
    )
    started = time.perf_counter()
    settle(service)
    print(f"    ANALYZE and CHECKPOINT took {time.perf_counter() - started:.0f} s", flush=True)
    size = database_bytes(service, database_url)
    print(f"    database on disk: {size / 2**20:,.0f} MB, {size / count:,.0f} bytes per event")
    return stored


async def measured(service: Tracepoint, stored: Loaded, runs: int) -> dict[str, QueryFigures]:
    """p50/p95 milliseconds of typical queries over HTTP and of their SQL alone."""
    factory = EventFactory(seed=42)
    rule = {"bizLocation": {"_eq": factory.locations[PARTNER_SITE]}}
    partner_scope: tuple[EventQuery, ...] = rule_scope(rule)
    events, reader = service.epcis.events, service.epcis.event_reader
    per_page = service.settings.query_per_page_default
    results: dict[str, QueryFigures] = {}
    async with serving(service) as (base, session):
        partner = await _partner(session, base, rule)
        for name, (params, by_partner) in _queries(factory, stored).items():
            asked = [params() for _ in range(WARM_UP + runs)]
            token = partner if by_partner else TOKEN
            began_cpu = process_cpu()
            timings = await _client_timings(base, token, asked)
            cpu = (process_cpu() - began_cpu) * 1000 / len(asked)
            scope = partner_scope if by_partner else None
            sql = []
            for query in asked[WARM_UP:]:
                parsed = await events.parsed({k: [v] for k, v in query.items()}, scope)
                began = time.perf_counter()
                reader.snapshot_and_page(parsed, limit=per_page + 1, scope=scope)
                sql.append((time.perf_counter() - began) * 1000)
            again = statistics.median(await _client_timings(base, token, asked))
            results[name] = QueryFigures(*_percentiles(timings), *_percentiles(sql), cpu, again)
    return results


async def _client_timings(base: str, token: str, queries: list[dict[str, str]]) -> list[float]:
    """Milliseconds of each query after the warm-up, from `bench.query_client`."""
    client = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.query_client",
        base,
        token,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    output, _ = await client.communicate(orjson.dumps(queries))
    if client.returncode != 0:
        raise RuntimeError(f"bench.query_client failed with exit code {client.returncode}")
    timings: list[float] = orjson.loads(output)
    return timings


async def query_latencies(database_url: str, count: int, runs: int) -> dict[str, QueryFigures]:
    """`measured` with `count` events stored in a fresh service on `database_url`."""
    service = Tracepoint(settings(database_url))
    await service.start()
    try:
        return await measured(service, await loaded(service, database_url, count), runs)
    finally:
        await service.stop()
