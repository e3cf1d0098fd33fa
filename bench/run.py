"""`make bench`: capture throughput and latency, memory, query latency and disk, each
beside its floor and its target.

    python -m bench.run [--backend sqlite|postgresql|both] [--events 1000000]
        [--capture-events 20000] [--only capture|latency|memory|query|disk]

Prints one table per backend. `--events` is how many events are stored before the query
latencies and the disk are measured (1,000,000 by default; smaller for a quick look).
"""

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from application.runtime import Tracepoint
from bench import capture, disk
from bench.generator import CARRIERS, NAMESPACES, EventFactory
from bench.harness import fresh_database, serving, settings
from bench.table import Figure, Target, header, row
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.event_hash import event_hash


def load(service: Tracepoint, count: int, factory: EventFactory, lots: list[str]) -> list[str]:
    """Store `count` events through the store and projections (no HTTP); return some EPCs
    (and some lot numbers in `lots`)."""
    sample: list[str] = []
    done = 0
    report = time.perf_counter()
    while done < count:
        events = factory.events(min(1000, count - done))
        aggregates = [
            CapturedEvent.captured(
                event_id=event_hash(e, NAMESPACES),
                epcis_event=e,
                namespaces=NAMESPACES,
                record_time="2025-06-01T00:00:00.000Z",
                capture_id="bench-load",
            )
            for e in events
        ]
        service.store.save(*aggregates)
        service.projections.catch_up()
        if len(sample) < 500:
            sample.extend(e["epcList"][0] for e in events[:5] if "epcList" in e)
        if len(lots) < 500:
            lots.extend(e["ilmd"]["cbvmda:lotNumber"] for e in events[:50] if "ilmd" in e)
        done += len(events)
        if time.perf_counter() - report > 30:
            print(f"    loaded {done:,} events", flush=True)
            report = time.perf_counter()
    return sample


async def query_latencies(
    database_url: str, count: int, runs: int
) -> dict[str, tuple[float, float]]:
    """p50/p95 milliseconds of four typical queries with `count` events stored."""
    service = Tracepoint(settings(database_url))
    factory = EventFactory(seed=42)
    started = time.perf_counter()
    lots: list[str] = []
    sample = await asyncio.to_thread(load, service, count, factory, lots)
    print(f"    loaded {count:,} events in {time.perf_counter() - started:.0f} s", flush=True)
    await service.start()
    rng = factory.random
    results: dict[str, tuple[float, float]] = {}

    def window() -> dict[str, str]:
        start = factory.start.timestamp() + rng.uniform(0, factory.span_seconds - 3600)
        begin = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
        end = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + 3600))
        return {"GE_eventTime": begin, "LT_eventTime": end}

    def pattern() -> dict[str, str]:
        epc = rng.choice(sample)
        head, _, _ = epc.rpartition(".")
        return {"MATCH_epc": head.replace(":id:", ":idpat:") + ".*"}

    queries: dict[str, Any] = {
        "1-hour eventTime window": window,
        "EQ_bizStep": lambda: {"EQ_bizStep": rng.choice(["shipping", "receiving"])},
        "MATCH_epc exact": lambda: {"MATCH_epc": rng.choice(sample)},
        "MATCH_epc pattern": pattern,
        "ILMD lot number": lambda: {"EQ_ILMD_cbvmda:lotNumber": rng.choice(lots)},
        "extension field": lambda: {"EQ_ex:carrier": rng.choice(CARRIERS)},
        "sensor type + value (FAH)": lambda: {
            "EQ_type": "Temperature",
            "GE_value_FAH": str(rng.randint(68, 85)),
        },
        # Ordered by an extension field's number: over every event, and over one carrier's.
        "orderBy extension field": lambda: {"orderBy": "ex:weight"},
        "carrier, orderBy field": lambda: {
            "EQ_ex:carrier": rng.choice(CARRIERS),
            "orderBy": "ex:weight",
            "orderDirection": rng.choice(["ASC", "DESC"]),
        },
    }
    async with serving(service) as (base, session):
        for name, params in queries.items():
            timings = []
            for _ in range(runs):
                began = time.perf_counter()
                async with session.get(f"{base}/v2/epcis/events", params=params()) as response:
                    await response.read()
                    if response.status != 200:
                        raise RuntimeError(await response.text())
                timings.append((time.perf_counter() - began) * 1000)
            timings.sort()
            results[name] = (statistics.median(timings), timings[int(len(timings) * 0.95) - 1])
    await service.stop()
    return results


def capture_memory(database_url: str, kind: str = "json") -> tuple[float, float]:
    """Peak resident memory (MB) of a fresh service capturing one 10,000-event document
    (`json` or `xml`): its own process, and its event-analysis workers together."""
    output = subprocess.run(
        [sys.executable, "-m", "bench.memory", database_url, kind],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    service, workers = output.strip().splitlines()[-1].split()
    return float(service), float(workers)


#: Issue 20: service and analysis workers together, capturing 10,000 events.
MEMORY_TARGET = Target(400, at_most=True)
QUERY_TARGET = Target(25, at_most=True)
PARTS = ("capture", "latency", "memory", "query", "disk")


def main() -> None:
    """Run the chosen benchmarks on the chosen backends and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--capture-events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--only", choices=PARTS, help="run one benchmark only")
    args = parser.parse_args()
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    parts = [args.only] if args.only else PARTS
    for backend in backends:
        print(f"== {backend}\n{header()}", flush=True)
        for figure in figures(backend, parts, args):
            print(row(figure), flush=True)


def figures(backend: str, parts: Sequence[str], args: argparse.Namespace) -> Iterator[Figure]:
    """The chosen parts' figures for `backend`, each as soon as it is measured."""
    for batch in (100, 1000) if "capture" in parts else ():
        yield from capture.throughput(backend, batch, args.capture_events)
    if "latency" in parts:
        yield from capture.latency(backend)
    for kind in ("json", "xml") if "memory" in parts else ():
        with fresh_database(backend) as url:
            peak, workers = capture_memory(url, kind)
        peak, workers = round(peak), round(workers)
        shown = f"{peak + workers:,} MB ({peak}+{workers})"
        name = f"peak memory, 10,000 events {kind.upper()} (svc+workers)"
        yield Figure(name, peak + workers, "MB", None, MEMORY_TARGET, shown)
    if "query" in parts:
        with fresh_database(backend) as url:
            latencies = asyncio.run(query_latencies(url, args.events, args.runs))
            usage = disk.disk_usage(url)
        for name, (p50, p95) in latencies.items():
            shown = f"p50 {p50:.1f} p95 {p95:.1f} ms"
            yield Figure(f"query {name}", p95, "ms", None, QUERY_TARGET, shown)
        yield from disk.figures(usage, args.events)
    elif "disk" in parts:
        with fresh_database(backend) as url:
            service = Tracepoint(settings(url))
            load(service, args.events, EventFactory(seed=42), [])
            service.close()
            usage = disk.disk_usage(url)
        yield from disk.figures(usage, args.events)


if __name__ == "__main__":
    main()
