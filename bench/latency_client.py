"""The one-event latency benchmark's client, in a process of its own as a real client is.

    python -m bench.latency_client <base URL> <token> capture|events <captures>

Posts one-event documents (`capture`: `POST /v2/epcis/capture`) or bare events
(`events`: `POST /v2/epcis/events`) one after the other, each answered once its event is
queryable, and prints the p50 and p95 milliseconds from sending to the answer.
"""

import asyncio
import statistics
import sys
import time
from typing import Any

import aiohttp
import orjson

from bench.generator import CONTEXT, NAMESPACES, EventFactory

ROUTES = {"capture": "/v2/epcis/capture", "events": "/v2/epcis/events"}
#: Untimed captures first: the first requests pay for connections and warming caches.
WARM_UP = 5


def body(route: str, event: dict[str, Any]) -> bytes:
    """A one-event document, or the bare event carrying the document's context."""
    if route == "capture":
        return orjson.dumps(EventFactory.document([event]))
    return orjson.dumps({"@context": [CONTEXT, NAMESPACES], **event})


async def latencies(base: str, token: str, route: str, captures: int) -> list[float]:
    """Milliseconds of each of `captures` sequential one-event captures, sorted."""
    factory = EventFactory(seed=5)
    bodies = [body(route, event) for event in factory.events(WARM_UP + captures)]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    timings: list[float] = []
    async with aiohttp.ClientSession(headers=headers) as session:
        for number, data in enumerate(bodies):
            began = time.perf_counter()
            async with session.post(base + ROUTES[route], data=data) as response:
                await response.read()
                if response.status != 201:
                    raise RuntimeError(f"{response.status}: {await response.text()}")
            if number >= WARM_UP:
                timings.append((time.perf_counter() - began) * 1000)
    return sorted(timings)


if __name__ == "__main__":
    base, token, route, captures = sys.argv[1:5]
    timings = asyncio.run(latencies(base, token, route, int(captures)))
    print(statistics.median(timings), timings[int(len(timings) * 0.95) - 1])
