"""A partner's EPCIS capture endpoint for tests: an aiohttp server on a loopback port that
keeps what it receives and can be told to fail, hang or refuse."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web


@dataclass
class Partner:
    """What the partner received, and how it answers next."""

    url: str = ""
    #: The JSON documents received (an XML one is only in `bodies`).
    documents: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    #: The bodies as received, byte for byte (signatures are over these).
    bodies: list[bytes] = field(default_factory=list)
    #: The status of the next answers (202 accepts).
    status: int = 202
    #: Seconds to wait before answering (longer than a connection's timeout: no answer).
    delay: float = 0.0

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every event received, in the order received (duplicates included)."""
        return [e for d in self.documents for e in d["epcisBody"]["eventList"]]

    @property
    def event_ids(self) -> list[str]:
        return [e["eventID"] for e in self.events]

    async def _capture(self, request: web.Request) -> web.Response:
        body = await request.read()
        if self.delay:
            await asyncio.sleep(self.delay)
        if 200 <= self.status < 300:
            if request.content_type != "application/xml":
                self.documents.append(orjson.loads(body))
            self.bodies.append(body)
            self.headers.append(dict(request.headers))
        return web.Response(status=self.status, text="partner says hello")


@asynccontextmanager
async def running_partner() -> AsyncIterator[Partner]:
    """A partner listening on 127.0.0.1 until the block ends."""
    partner = Partner()
    app = web.Application()
    app.router.add_post("/capture", partner._capture)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    partner.url = f"http://127.0.0.1:{port}/capture"
    try:
        yield partner
    finally:
        await runner.cleanup()
