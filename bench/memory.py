"""Captures one 10,000-event document and prints peak RSS in MB: this process, workers.

The second figure is the sum of the event-analysis workers' peaks (Linux: VmHWM). It
counts the pages they share with their fork server once per worker, so it overstates.
"""

import asyncio
import resource
import sys
from pathlib import Path

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
    workers = sum(_peak_kb(pid) for pid in service.epcis.analyser.worker_pids())
    await service.stop()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, workers / 1024)


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
