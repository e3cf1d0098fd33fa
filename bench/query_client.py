"""The query benchmark's client, in a process of its own as a real client is.

    python -m bench.query_client <base URL> <token> < queries.json

Reads a JSON list of query parameter objects, asks `GET /v2/epcis/events` with each in
turn (the first `WARM_UP` untimed), and prints the milliseconds of the others as a JSON
list, in order.
"""

import asyncio
import sys
import time
from typing import Any

import aiohttp
import orjson

#: Untimed requests first (connections, prepared statements, caches).
WARM_UP = 20


async def timings(base: str, token: str, queries: list[dict[str, Any]]) -> list[float]:
    """Milliseconds from sending each query after the warm-up to its answer's last byte."""
    found: list[float] = []
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(headers=headers) as session:
        for number, query in enumerate(queries):
            began = time.perf_counter()
            async with session.get(f"{base}/v2/epcis/events", params=query) as response:
                await response.read()
                if response.status != 200:
                    raise RuntimeError(f"{response.status}: {await response.text()}")
            if number >= WARM_UP:
                found.append((time.perf_counter() - began) * 1000)
    return found


if __name__ == "__main__":
    base, token = sys.argv[1:3]
    queries = orjson.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(orjson.dumps(asyncio.run(timings(base, token, queries))))
