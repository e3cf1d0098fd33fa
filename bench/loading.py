"""Filling a benchmark database with millions of events through the capture path.

Documents are generated in a process of their own (spawned: the service process runs
threads, which a fork would copy half-held), so generating the next document overlaps
capturing this one. Two captures are in flight at once: while one holds the write turn
(store and project), the next is validated and analysed by the capture workers. Every
event takes the path a captured event takes, so the query tables are exactly what
capture makes of them; only HTTP is left out.
"""

import asyncio
import multiprocessing
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

import orjson

from application.service.runtime import Tracepoint
from bench.generator import EventFactory

#: Events per captured document: the bench's capture limit is 20,000.
DOCUMENT = 10_000
#: Captures in flight: one in the write turn, one being validated and analysed.
IN_FLIGHT = 2
#: Documents generated ahead of the captures.
AHEAD = 3
#: An event uses at most this many serial numbers (an AggregationEvent: 1 + 10 children),
#: so documents generated apart never share an EPC.
SERIALS_PER_EVENT = 11


@dataclass
class Loaded:
    """What a load stored: some EPCs and lot numbers to query for, and how long it took."""

    epcs: list[str] = field(default_factory=list)
    lots: list[str] = field(default_factory=list)
    seconds: float = 0.0


def generated(seed: int, index: int, size: int) -> tuple[bytes, list[str], list[str]]:
    """Document number `index` of a load, as JSON, with some of its EPCs and lot numbers.

    Each document has a factory of its own, seeded by its number, so documents can be
    made in any process and in any order and a load is the same every time.
    """
    factory = EventFactory(seed=seed * 1_000_003 + index)
    factory.serial = index * size * SERIALS_PER_EVENT
    events = factory.events(size)
    epcs = [e["epcList"][0] for e in events[:5] if "epcList" in e]
    lots = [e["ilmd"]["cbvmda:lotNumber"] for e in events[:50] if "ilmd" in e]
    return orjson.dumps(factory.document(events)), epcs, lots


def _documents(
    pool: ProcessPoolExecutor, seed: int, count: int
) -> Iterator[Future[tuple[bytes, list[str], list[str]]]]:
    sizes = [DOCUMENT] * (count // DOCUMENT) + ([count % DOCUMENT] if count % DOCUMENT else [])
    for index, size in enumerate(sizes):
        yield pool.submit(generated, seed, index, size)


async def load(service: Tracepoint, count: int, seed: int = 42) -> Loaded:
    """Capture `count` generated events into the started `service`, as documents of
    `DOCUMENT` events, without HTTP; print progress every 30 s."""
    loaded = Loaded()
    started = report = time.perf_counter()
    done = 0
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        pending = _documents(pool, seed, count)
        ahead: list[Future[tuple[bytes, list[str], list[str]]]] = []
        turn = asyncio.Lock()

        async def next_document() -> bytes | None:
            async with turn:
                while len(ahead) < AHEAD and (future := next(pending, None)) is not None:
                    ahead.append(future)
                if not ahead:
                    return None
                body, epcs, lots = await asyncio.wrap_future(ahead.pop(0))
            if len(loaded.epcs) < 500:
                loaded.epcs.extend(epcs)
            if len(loaded.lots) < 500:
                loaded.lots.extend(lots)
            return body

        async def capture() -> None:
            nonlocal done, report
            while (body := await next_document()) is not None:
                document = orjson.loads(body)
                outcome = await service.epcis.capture.capture(document, "rollback", None)
                if outcome.events_stored != len(document["epcisBody"]["eventList"]):
                    raise RuntimeError(f"a bench capture stored {outcome.events_stored} events")
                done += outcome.events_stored
                if time.perf_counter() - report > 30:
                    rate = done / (time.perf_counter() - started)
                    print(f"    loaded {done:,} events ({rate:,.0f} events/s)", flush=True)
                    report = time.perf_counter()

        await asyncio.gather(*(capture() for _ in range(IN_FLIGHT)))
    loaded.seconds = time.perf_counter() - started
    # A head signed after the load, as the service's timer would: the audit tree's
    # nodes are built, and counted in the disk figures.
    await service.blocking.run(service.audit.heads.sign)
    return loaded
