"""Capture figures against their floors: throughput over HTTP beside the database's own
rate for the same events, the raw event-store append, and one-event latency.
"""

import asyncio
import sys
import time
from collections.abc import Iterator

from application.service.runtime import Tracepoint
from bench.floors import postgresql_copy_floor, sqlite_insert_floor
from bench.generator import EventFactory, capture_documents
from bench.harness import TOKEN, fresh_database, process_cpu, serving, settings
from bench.latency_client import WARM_UP
from bench.table import Figure, Target
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.event_hash import event_hash

#: Issue 20's capture targets, as fractions of the floor: PostgreSQL with two clients,
#: SQLite with any.
POSTGRESQL_TARGET = Target(0.30, of_floor=True)
SQLITE_TARGET = Target(0.15, of_floor=True)
LATENCY_TARGET = Target(5.0, at_most=True)
#: Issue 21: capture with the audit tree at most 5 % slower than without it.
AUDIT_TREE_TARGET = Target(0.95, of_floor=True)
CAPTURES = 100


def raw_store_rate(database_url: str, batch: int, total: int) -> float:
    """Events/s appending the capture benchmark's events straight to the event store as
    CapturedEvent creation events, a batch per document."""
    service = Tracepoint(settings(database_url))
    docs = capture_documents(batch, total)
    ids = [[event_hash(e, {}) for e in doc] for doc in docs]
    started = time.perf_counter()
    for doc, doc_ids in zip(docs, ids, strict=True):
        service.store.save(
            *[
                CapturedEvent.captured(
                    event_id=i,
                    epcis_event=e,
                    namespaces={},
                    record_time="2025-01-01T00:00:00.000Z",
                    capture_id="bench",
                )
                for i, e in zip(doc_ids, doc, strict=True)
            ]
        )
    elapsed = time.perf_counter() - started
    service.close()
    return total / elapsed


async def capture_rate(
    database_url: str, batch: int, total: int, clients: int, audit_tree: bool = True
) -> float:
    """Events/s through POST /v2/epcis/capture, including validation, hashing, storing and
    the wait until the events are queryable.

    The client runs in a process of its own: in the server's process it would take the
    server's interpreter lock for building and sending requests, as no real client does.
    """
    output, _ = await _client(
        database_url,
        "bench.capture_client",
        str(batch),
        str(total),
        str(clients),
        audit_tree=audit_tree,
    )
    return float(output.split()[-1])


async def one_event_latency(
    database_url: str, route: str, captures: int
) -> tuple[float, float, float]:
    """p50/p95 milliseconds of `captures` sequential one-event captures over HTTP (`route`:
    `capture` for a one-event document, `events` for the bare event), from a client
    process of its own; each answer comes once the event is queryable. Third, the
    service process's CPU milliseconds a capture, which a busy host inflates less than
    the wall clock (its steal and its other processes' turns are not in it)."""
    output, cpu = await _client(database_url, "bench.latency_client", route, str(captures))
    p50, p95 = output.split()[-2:]
    return float(p50), float(p95), cpu * 1000 / (captures + WARM_UP)


async def _warm(service: Tracepoint) -> None:
    """One untimed capture large enough for the analysis workers: a start only begins
    starting them, and the first large capture would otherwise wait for their imports
    (seconds on a busy machine), which is start-up, not throughput."""
    factory = EventFactory(seed=0)
    await service.epcis.capture.capture(factory.document(factory.events(200)), "rollback", None)


async def _client(
    database_url: str, module: str, *arguments: str, audit_tree: bool = True
) -> tuple[str, float]:
    """Serve a fresh service and run a benchmark client against it; its output, and the
    CPU seconds the service's process spent meanwhile (its analysis workers not counted)."""
    service = Tracepoint(settings(database_url, audit_tree=audit_tree))
    await service.start()
    await _warm(service)
    async with serving(service) as (base, _session):
        began = process_cpu()
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", module, base, TOKEN, *arguments, stdout=asyncio.subprocess.PIPE
        )
        output, _ = await client.communicate()
        cpu = process_cpu() - began
        if client.returncode != 0:
            raise RuntimeError(f"{module} failed with exit code {client.returncode}")
    await service.stop()
    return output.decode(), cpu


def floor_rate(backend: str, batch: int, total: int, clients: int) -> float:
    """The database floor for documents of `batch` events, in a database of its own."""
    with fresh_database(backend) as url:
        if backend == "postgresql":
            return postgresql_copy_floor(url, batch, total, clients)
        return sqlite_insert_floor(url, batch, total)


def throughput(backend: str, batch: int, total: int) -> Iterator[Figure]:
    """Raw append and capture with one and two clients, each beside its floor, the floor
    measured just before the figure so both see the same machine.

    SQLite has one writer, so its floor is one connection's, for both client counts.
    """
    engine = "COPY" if backend == "postgresql" else "INSERT"
    floor = floor_rate(backend, batch, total, 1)
    with fresh_database(backend) as url:
        raw = raw_store_rate(url, batch, total)
    yield Figure(f"raw store append, batches of {batch:,} (/{engine})", raw, "ev/s", floor)
    for clients in (1, 2):
        if backend == "postgresql" and clients > 1:
            floor = floor_rate(backend, batch, total, clients)
        with fresh_database(backend) as url:
            rate = asyncio.run(capture_rate(url, batch, total, clients))
        target = SQLITE_TARGET if backend == "sqlite" else None
        if backend == "postgresql" and clients == 2:
            target = POSTGRESQL_TARGET
        over = f"{engine} x2" if backend == "postgresql" and clients > 1 else engine
        name = f"capture, {batch:,}-event docs, {clients} client{'s'[: clients - 1]} (/{over})"
        yield Figure(name, rate, "ev/s", floor, target)


def audit_tree_cost(backend: str, batch: int, total: int, runs: int = 2) -> Iterator[Figure]:
    """Capture with the audit tree beside capture without it (two clients on PostgreSQL,
    one on SQLite's single writer): runs alternate, and each side's best counts, so that
    what else the machine does weighs on both alike."""
    clients = 2 if backend == "postgresql" else 1
    best = {True: 0.0, False: 0.0}
    for _ in range(runs):
        for tree in (False, True):
            with fresh_database(backend) as url:
                rate = asyncio.run(capture_rate(url, batch, total, clients, audit_tree=tree))
            best[tree] = max(best[tree], rate)
    who = f"{clients} client{'s'[: clients - 1]}"
    name = f"capture with the audit tree, {batch:,}-event docs, {who} (/without)"
    yield Figure(name, best[True], "ev/s", best[False], AUDIT_TREE_TARGET)


def latency(backend: str) -> Iterator[Figure]:
    """One-event capture latency over both routes, p95 against its target."""
    for route, name in (("capture", "POST /capture, 1 event"), ("events", "POST /events")):
        with fresh_database(backend) as url:
            p50, p95, cpu = asyncio.run(one_event_latency(url, route, CAPTURES))
        shown = f"p50 {p50:.1f} p95 {p95:.1f} ms"
        yield Figure(f"latency {name} ({CAPTURES} seq.)", p95, "ms", None, LATENCY_TARGET, shown)
        yield Figure(f"  service CPU a request, {name}", cpu, "ms")
