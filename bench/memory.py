"""Captures one 10,000-event document in this process and prints its peak RSS in MB."""

import asyncio
import resource
import sys

import orjson

from application.runtime import Tracepoint
from bench.generator import EventFactory
from bench.harness import serving, settings


async def main(database_url: str) -> None:
    """Start the service, capture one large document over HTTP, report the peak memory."""
    service = Tracepoint(settings(database_url))
    await service.start()
    factory = EventFactory(seed=10_000)
    body = orjson.dumps(factory.document(factory.events(10_000)))
    async with (
        serving(service) as (base, session),
        session.post(
            f"{base}/v2/epcis/capture", data=body, headers={"Content-Type": "application/json"}
        ) as response,
    ):
        if response.status != 201:
            raise SystemExit(await response.text())
    await service.stop()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
