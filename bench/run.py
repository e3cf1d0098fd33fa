"""`make bench`: capture throughput, raw store rate, query latency and capture memory.

    python -m bench.run [--backend sqlite|postgresql|both] [--events 1000000]

Prints one table per backend. `--events` is how many events are captured (without HTTP,
`bench/loading.py`) before the query latencies are measured (`bench/queries.py`):
1,000,000 by default, smaller for a quick look, 10,000,000 for the figures of
docs/scaling.md (opt-in: the load alone takes the better part of an hour).
"""

import argparse
import asyncio
import subprocess
import sys
import time

from application.runtime import Tracepoint
from bench.generator import EventFactory
from bench.harness import TOKEN, fresh_database, serving, settings
from bench.queries import print_latencies, query_latencies
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.event_hash import event_hash


def raw_store_rate(database_url: str, batch: int, total: int) -> float:
    """Events/s appending CapturedEvent aggregates straight to the event store."""
    service = Tracepoint(settings(database_url))
    factory = EventFactory(seed=batch)
    docs = [factory.events(batch) for _ in range(total // batch)]
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


async def capture_rate(database_url: str, batch: int, total: int, clients: int) -> float:
    """Events/s through POST /v2/epcis/capture, including validation, hashing, storing and
    the wait until the events are queryable.

    The client runs in a process of its own: in the server's process it would take the
    server's interpreter lock for building and sending requests, as no real client does.
    """
    service = Tracepoint(settings(database_url))
    await service.start()
    async with serving(service) as (base, _session):
        client = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.capture_client",
            base,
            TOKEN,
            str(batch),
            str(total),
            str(clients),
            stdout=asyncio.subprocess.PIPE,
        )
        output, _ = await client.communicate()
        if client.returncode != 0:
            raise RuntimeError(f"capture client failed with exit code {client.returncode}")
    await service.stop()
    return float(output.decode().strip().splitlines()[-1])


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


def main() -> None:
    """Run every benchmark on the chosen backends and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--capture-events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument(
        "--only", choices=["capture", "memory", "query"], help="run one benchmark only"
    )
    args = parser.parse_args()
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    for backend in backends:
        print(f"== {backend}", flush=True)
        for batch in (100, 1000) if args.only in (None, "capture") else ():
            with fresh_database(backend) as url:
                raw = raw_store_rate(url, batch, args.capture_events)
            with fresh_database(backend) as url:
                one = asyncio.run(capture_rate(url, batch, args.capture_events, clients=1))
            with fresh_database(backend) as url:
                two = asyncio.run(capture_rate(url, batch, args.capture_events, clients=2))
            print(
                f"  documents of {batch:>4} events: raw store {raw:8,.0f} ev/s | capture "
                f"1 client {one:7,.0f} ev/s ({one / raw:.0%}) | 2 clients {two:7,.0f} ev/s "
                f"({two / raw:.0%})",
                flush=True,
            )
        for kind in ("json", "xml") if args.only in (None, "memory") else ():
            with fresh_database(backend) as url:
                peak, workers = capture_memory(url, kind)
            print(
                f"  peak memory capturing 10,000 events as {kind.upper():<4}: {peak:.0f} MB "
                f"service process, {workers:.0f} MB analysis workers together",
                flush=True,
            )
        if args.only not in (None, "query"):
            continue
        with fresh_database(backend) as url:
            latencies = asyncio.run(query_latencies(url, args.events, args.runs))
        print_latencies(latencies, args.events)


if __name__ == "__main__":
    main()
