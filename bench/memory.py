"""Captures one 10,000-event document and prints peak RSS in MB: this process, workers.

`python -m bench.memory URL [json|xml]`: the document is sent as JSON (the default) or as
its EPCIS 2.0 XML twin. The second figure is the sum of the event-analysis workers' peaks
(Linux: VmHWM). It counts the pages they share with their fork server once per worker, so
it overstates.
"""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

# The service is imported inside the functions, as the `tracepoint` command does
# (api/service/launcher.py): the analysis workers import this module when they start, and must
# not carry the whole service with them, or the figure is not the service's.

EVENTS = 10_000
MEDIA_TYPES = {"json": "application/json", "xml": "application/xml"}


def document_body(kind: str) -> bytes:
    """The benchmark's document, as JSON or as XML."""
    import orjson

    from bench.generator import EventFactory
    from infrastructure.epcis_xml.writer import capture_document_xml

    factory = EventFactory(seed=10_000)
    document = factory.document(factory.events(EVENTS))
    if kind == "json":
        return orjson.dumps(document)
    events = [orjson.dumps(event).decode() for event in document["epcisBody"]["eventList"]]
    return capture_document_xml(events, {}, document["creationDate"])


def body_of(kind: str) -> bytes:
    """The document to capture; XML is written by another process, as building its tree
    here would otherwise set the peak being measured."""
    if kind == "json":
        return document_body(kind)
    script = "import sys, bench.memory as m; sys.stdout.buffer.write(m.document_body('xml'))"
    return subprocess.run([sys.executable, "-c", script], check=True, capture_output=True).stdout


async def main(database_url: str, kind: str, body: bytes) -> None:
    """Start the service, capture one large document over HTTP, report the peak memory."""
    from application.service.runtime import Tracepoint
    from bench.harness import serving, settings

    service = Tracepoint(settings(database_url))
    await service.start()
    async with (
        serving(service) as (base, session),
        session.post(
            f"{base}/v2/epcis/capture", data=body, headers={"Content-Type": MEDIA_TYPES[kind]}
        ) as response,
    ):
        if response.status != 201:
            raise SystemExit(await response.text())
    workers = sum(_peak_kb(pid) for pid in service.epcis.analyser.worker_pids())
    await service.stop()
    # The process's own high-water mark (Linux: VmHWM), not getrusage's ru_maxrss, which
    # keeps across exec the peak of the process this one was forked from: after the
    # query part had loaded a million events, `make bench` reported that process's size.
    print(_peak_kb(os.getpid()) / 1024, workers / 1024)


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    chosen = sys.argv[2] if len(sys.argv) > 2 else "json"
    asyncio.run(main(sys.argv[1], chosen, body_of(chosen)))
