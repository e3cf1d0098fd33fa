"""`make bench`: capture throughput and latency, the audit tree's cost, memory, query
latency and disk, each beside its floor and its target.

    python -m bench.run [--backend sqlite|postgresql|both] [--events 1000000]
        [--capture-events 20000] [--only capture|audit|latency|memory|query|disk]

`audit` captures with the audit tree beside the same capture without it
(`TRACEPOINT_AUDIT_TREE=false`), runs alternating, the best of two each.

Prints one table per backend. `--events` is how many events are captured (without HTTP,
`bench/loading.py`) before the query latencies (`bench/queries.py`) and the disk are
measured: 1,000,000 by default, smaller for a quick look, 10,000,000 for the figures of
docs/scaling.md (opt-in: the load alone takes hours on a small machine).
"""

import argparse
import asyncio
import statistics
import subprocess
import sys
from collections.abc import Iterator, Sequence

from application.service.runtime import Tracepoint
from bench import capture, disk
from bench.harness import fresh_database, settings
from bench.loading import load
from bench.queries import query_latencies
from bench.table import Figure, Target, header, row


async def _loaded_only(database_url: str, count: int) -> None:
    """Capture `count` events into a fresh service, for the disk figures alone."""
    service = Tracepoint(settings(database_url))
    await service.start()
    try:
        await load(service, count)
    finally:
        await service.stop()


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
OVERHEAD_TARGET = Target(1, at_most=True)
PARTS = ("capture", "audit", "latency", "memory", "query", "disk")


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
    for batch in (100, 1000) if "audit" in parts else ():
        yield from capture.audit_tree_cost(backend, batch, args.capture_events)
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
        for name, f in latencies.items():
            shown = (
                f"p50 {f.p50:.1f} p95 {f.p95:.1f} ms (SQL {f.sql_p50:.1f}/{f.sql_p95:.1f},"
                f" again {f.again_p50:.1f}, CPU {f.cpu:.1f})"
            )
            yield Figure(f"query {name}", f.p95, "ms", None, QUERY_TARGET, shown)
        overheads = sorted(f.again_p50 - f.sql_p50 for f in latencies.values())
        overhead = statistics.median(overheads)
        shown = f"{overhead:.1f} ms ({overheads[0]:.1f} to {overheads[-1]:.1f})"
        yield Figure(
            "API overhead per query over its SQL (p50, warm)",
            overhead,
            "ms",
            None,
            OVERHEAD_TARGET,
            shown,
        )
        yield from disk.figures(usage, args.events)
    elif "disk" in parts:
        with fresh_database(backend) as url:
            asyncio.run(_loaded_only(url, args.events))
            usage = disk.disk_usage(url)
        yield from disk.figures(usage, args.events)


if __name__ == "__main__":
    main()
