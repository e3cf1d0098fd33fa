"""The capture benchmark's client, in a process of its own, as a real client would be.

    python -m bench.capture_client <base URL> <token> <events per document> <total> <clients>

Posts the documents with `clients` concurrent connections and prints events/s, timed
from the first request to the last 201.
"""

import asyncio
import sys
import time

import aiohttp
import orjson

from bench.generator import EventFactory, capture_documents


async def post_all(base: str, token: str, batch: int, total: int, clients: int) -> float:
    """Events/s capturing `total` events in documents of `batch` events."""
    bodies = [orjson.dumps(EventFactory.document(e)) for e in capture_documents(batch, total)]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession(headers=headers) as session:

        async def worker(mine: list[bytes]) -> None:
            for body in mine:
                async with session.post(f"{base}/v2/epcis/capture", data=body) as response:
                    if response.status != 201:
                        raise RuntimeError(await response.text())

        started = time.perf_counter()
        await asyncio.gather(*(worker(bodies[i::clients]) for i in range(clients)))
        return total / (time.perf_counter() - started)


if __name__ == "__main__":
    base, token, batch, total, clients = sys.argv[1:6]
    print(asyncio.run(post_all(base, token, int(batch), int(total), int(clients))))
