"""`make bench`: latency of `GET /trace` (5 hops) with many events stored.

    python -m bench.trace [--backend postgresql|sqlite] [--events 1000000] [--runs 200]

Stores `--events` events through the event store and the projections (as capture does,
without HTTP): supply chains of lots (commissioned, packed into cases, cases onto
pallets, pallets into containers, containers associated with trucks, items transformed
across two events sharing a transformationID), one chain event in ten, among the
ObjectEvents and AggregationEvents of `bench.generator`. Then times 5-hop traces through
HTTP: a lot downstream (lot → items → case → pallet → container → truck) and an item
upstream and downstream.
"""

import argparse
import asyncio
import statistics
import time
from typing import Any

from application.service.runtime import Tracepoint
from bench.generator import NAMESPACES, EventFactory
from bench.harness import fresh_database, serving, settings
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.event_hash import event_hash

#: Events per stored batch, as a large capture document would hold.
BATCH = 1000
#: Items per lot.
ITEMS = 10
#: Untimed requests of each kind first (connections, prepared statements, caches).
WARM_UP = 20


def settle(service: Tracepoint) -> None:
    """Refresh the planner statistics and, on PostgreSQL, write the dirty pages out."""
    service.database.analyze([t for p in service.projections.projections for t in p.tables])
    if service.database.dialect.name == "postgresql":
        with service.database.transaction() as conn:
            conn.execute("CHECKPOINT")


class Chains:
    """Events of lots that travel: each chain seven events, times in order."""

    def __init__(self, factory: EventFactory) -> None:
        self._factory = factory
        self.count = 0
        #: (lot class URN, one item's URN) of every chain made.
        self.made: list[tuple[str, str]] = []

    def _time(self, base: float, hours: int) -> str:
        moment = base + hours * 3600
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))

    def chain(self) -> list[dict[str, Any]]:
        """The seven events of one lot's journey."""
        self.count += 1
        n = self.count
        factory = self._factory
        base = factory.start.timestamp() + factory.random.uniform(0, factory.span_seconds - 86_400)
        cp, ref = "9521234", "0" + f"{n % 100_000:05d}"
        lot = f"LT{n}"
        items = [f"urn:epc:id:sgtin:{cp}.{ref}.{n}-{i}" for i in range(ITEMS)]
        case, pallet, container = (f"urn:epc:id:sscc:{cp}.{k}{n:09d}" for k in (1, 2, 3))
        truck = f"urn:epc:id:giai:{cp}.TRUCK{n % 500}"
        common = {"eventTimeZoneOffset": "+00:00"}

        def packed(parent: str, children: list[str], hours: int) -> dict[str, Any]:
            return {
                "type": "AggregationEvent",
                "eventTime": self._time(base, hours),
                **common,
                "parentID": parent,
                "childEPCs": children,
                "action": "ADD",
                "bizStep": "packing",
            }

        self.made.append((f"urn:epc:class:lgtin:{cp}.{ref}.{lot}", items[0]))
        return [
            {
                "type": "ObjectEvent",
                "eventTime": self._time(base, 0),
                **common,
                "epcList": items,
                "action": "ADD",
                "bizStep": "commissioning",
                "ilmd": {"cbvmda:lotNumber": lot},
            },
            packed(case, items, 1),
            packed(pallet, [case], 2),
            packed(container, [pallet], 3),
            {
                "type": "AssociationEvent",
                "eventTime": self._time(base, 4),
                **common,
                "parentID": truck,
                "childEPCs": [container],
                "action": "ADD",
                "bizStep": "loading",
            },
            {
                "type": "TransformationEvent",
                "eventTime": self._time(base, 5),
                **common,
                "inputEPCList": items[-2:],
                "transformationID": f"urn:uuid:bench-{n}",
                "bizStep": "commissioning",
            },
            {
                "type": "TransformationEvent",
                "eventTime": self._time(base, 6),
                **common,
                "outputQuantityList": [
                    {"epcClass": f"urn:epc:class:lgtin:{cp}.1{ref[1:]}.J{n}", "quantity": 4}
                ],
                "transformationID": f"urn:uuid:bench-{n}",
                "bizStep": "commissioning",
            },
        ]


def load(service: Tracepoint, count: int, factory: EventFactory, chains: Chains) -> None:
    """Store `count` events, one in ten from chains, in batches through the projections."""
    done = 0
    report = time.perf_counter()
    while done < count:
        size = min(BATCH, count - done)
        events: list[dict[str, Any]] = []
        while len(events) < size // 10:
            events.extend(chains.chain())
        events.extend(factory.events(size - len(events)))
        events = events[:size]
        service.store.save(
            *[
                CapturedEvent.captured(
                    event_id=event_hash(e, NAMESPACES),
                    epcis_event=e,
                    namespaces=NAMESPACES,
                    record_time="2025-06-01T00:00:00.000Z",
                    capture_id=f"bench-trace-{done}",
                )
                for e in events
            ]
        )
        service.projections.catch_up()
        done += len(events)
        if time.perf_counter() - report > 30:
            print(f"    loaded {done:,} events", flush=True)
            report = time.perf_counter()


async def trace_latencies(
    database_url: str, count: int, runs: int
) -> dict[str, tuple[float, float, float]]:
    """p50/p95 milliseconds and mean edges of 5-hop traces with `count` events stored."""
    service = Tracepoint(settings(database_url))
    factory = EventFactory(seed=19)
    chains = Chains(factory)
    started = time.perf_counter()
    await asyncio.to_thread(load, service, count, factory, chains)
    print(f"    loaded {count:,} events in {time.perf_counter() - started:.0f} s", flush=True)
    # Steady state, not the minutes after a bulk load: fresh statistics, and the pages the
    # load dirtied written out, so a checkpoint does not land among the timed requests.
    await asyncio.to_thread(settle, service)
    await service.start()
    rng = factory.random
    asks: dict[str, Any] = {
        "lot downstream, 5 hops": lambda: {
            "epc": rng.choice(chains.made)[0],
            "direction": "downstream",
            "depth": "5",
        },
        "item both ways, 5 hops": lambda: {"epc": rng.choice(chains.made)[1], "depth": "5"},
    }
    results: dict[str, tuple[float, float, float]] = {}
    async with serving(service) as (base, session):
        for name, params in asks.items():
            timings, sizes = [], []
            for _ in range(WARM_UP):
                async with session.get(f"{base}/trace", params=params()) as response:
                    await response.read()
            for _ in range(runs):
                began = time.perf_counter()
                async with session.get(f"{base}/trace", params=params()) as response:
                    body = await response.json()
                    if response.status != 200:
                        raise RuntimeError(str(body))
                timings.append((time.perf_counter() - began) * 1000)
                sizes.append(len(body["data"]["edges"]))
            timings.sort()
            results[name] = (
                statistics.median(timings),
                timings[int(len(timings) * 0.95) - 1],
                statistics.mean(sizes),
            )
    await service.stop()
    return results


def main() -> None:
    """Load, trace, print."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    print(f"== trace on {args.backend}", flush=True)
    with fresh_database(args.backend) as url:
        latencies = asyncio.run(trace_latencies(url, args.events, args.runs))
    for name, (p50, p95, edges) in latencies.items():
        print(
            f"  {name:<24} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms  "
            f"({edges:.0f} edges, {args.events:,} events)",
            flush=True,
        )


if __name__ == "__main__":
    main()
