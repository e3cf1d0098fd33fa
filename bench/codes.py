"""Identifier-job throughput: how long a job of a million sgtin codes takes, and memory.

    python -m bench.codes [--backend postgresql|sqlite|both] [--codes 1000000]
                          [--chunk 10000]

Starts the service on a fresh database (as `bench.run` does, dropped at the end),
creates a product and an identifier job through the items service, then times the
worker from `new` to `complete` with every code in the `unique_code` table, and reads
the job back. Memory: the process's resident set, sampled every 100 ms, at the start and
at its peak; flat memory means the peak does not grow with the number of codes.
The issue's target: 1,000,000 codes in at most 60 s on PostgreSQL on 2 cores.
"""

import argparse
import asyncio
import os
import threading
import time
from pathlib import Path

from application.service.runtime import Tracepoint
from bench.harness import fresh_database, settings
from domain.access.policies import SYSTEM
from domain.collections.item_query import ItemQuery


def _rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024 / 1024


class _Peak:
    """Samples the resident set in a thread until stopped."""

    def __init__(self) -> None:
        self.start = _rss_mb()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, _rss_mb())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


async def measure(database_url: str, codes: int, chunk: int) -> dict[str, float]:
    """Seconds and memory of one job of `codes` sgtin codes."""
    service = Tracepoint(
        settings(database_url, code_chunk_size=chunk, background_work=False, capture_workers=0)
    )
    await service.start()
    try:
        [product] = await service.items.service.create(
            SYSTEM, "product", [{"gtin": "09506000134352"}], ItemQuery()
        ) or [{}]
        [job] = await service.items.service.create(
            SYSTEM, "identifier_job", [{"product": product["id"], "quantity": codes}], ItemQuery()
        ) or [{}]
        peak = _Peak()
        started = time.perf_counter()
        await service.codes.work.run()
        seconds = time.perf_counter() - started
        peak.stop()
        done = await service.items.service.read_one(
            SYSTEM, "identifier_job", job["id"], ItemQuery()
        )
        stored = await service.blocking.run(service.codes.reader.count_unassigned, "sgtin", None)
        if done["status"] != "complete" or stored != codes:
            raise SystemExit(f"job ended {done['status']} with {stored} codes stored")
        return {"seconds": seconds, "rss_start": peak.start, "rss_peak": peak.peak}
    finally:
        await service.stop()


def main() -> None:
    """Run the benchmark on the chosen backends and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--codes", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=10_000)
    args = parser.parse_args()
    backends = ("postgresql", "sqlite") if args.backend == "both" else (args.backend,)
    for backend in backends:
        with fresh_database(backend) as url:
            figures = asyncio.run(measure(url, args.codes, args.chunk))
        print(
            f"{backend}: {args.codes:,} sgtin codes in {figures['seconds']:.1f} s"
            f" ({args.codes / figures['seconds']:,.0f} codes/s);"
            f" RSS {figures['rss_start']:.0f} MB at start, {figures['rss_peak']:.0f} MB at peak"
        )


if __name__ == "__main__":
    main()
