"""Outbound delivery: flow throughput and subscription latency, to a partner on loopback.

    python -m bench.flows [--backend postgresql|sqlite|both] [--events 20000]
                          [--samples 40]

Throughput: captures `--events` generated events, then times an outbound flow (a named
query selecting every event, documents of 500) pushing them all to a partner listening
on 127.0.0.1 in the same process: events per second from the first run to backlog 0.

Latency: `--samples` times, captures one event and measures until it reaches (a) a
WebSocket subscriber of the named query and (b) a stream webhook subscription delivered
by the background timer (TRACEPOINT_FLOW_POLL_INTERVAL, here 0.2 s); p50/p95 of each.
Each run uses a database of its own, dropped at the end.
"""

import argparse
import asyncio
import statistics
import time
from typing import Any

import orjson
from aiohttp import web

from application.service.runtime import Tracepoint
from bench.generator import EventFactory
from bench.harness import fresh_database, serving, settings


class _Partner:
    """Counts the events it receives and notes when each document arrived."""

    def __init__(self) -> None:
        self.events = 0
        self.arrived = asyncio.Event()

    async def capture(self, request: web.Request) -> web.Response:
        document = orjson.loads(await request.read())
        body = document["epcisBody"]
        events = (
            body["eventList"]
            if "eventList" in body
            else body["queryResults"]["resultsBody"]["eventList"]
        )
        self.events += len(events)
        if events:
            self.arrived.set()
        return web.Response(status=202)


async def _listening(partner: _Partner) -> tuple[web.AppRunner, str]:
    app = web.Application(client_max_size=512 * 1024 * 1024)
    app.router.add_post("/capture", partner.capture)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}/capture"


async def measure(database_url: str, events: int, samples: int) -> dict[str, Any]:
    """Throughput and latencies on one database."""
    service = Tracepoint(
        settings(
            database_url,
            outbound_allow_list="127.0.0.0/8",
            flow_poll_interval=0.2,
            capture_workers=0,
        )
    )
    await service.start()
    partner = _Partner()
    runner, url = await _listening(partner)
    try:
        async with serving(service) as (base, session):

            async def post(path: str, body: Any) -> Any:
                async with session.post(
                    f"{base}{path}",
                    data=orjson.dumps(body),
                    headers={"Content-Type": "application/json"},
                ) as response:
                    if response.status >= 300:
                        raise SystemExit(f"{path}: {response.status} {await response.text()}")
                    return await response.json()

            factory = EventFactory(seed=11)
            for start in range(0, events, 5000):
                await post(
                    "/v2/epcis/capture", factory.document(factory.events(min(5000, events - start)))
                )
            connection = (
                await post(
                    "/items/epcis_connection", {"name": "bench", "url": url, "timeout_seconds": 120}
                )
            )["data"]
            await post(
                "/v2/epcis/queries",
                {
                    "name": "everything",
                    "query": {
                        "eventType": [
                            "ObjectEvent",
                            "AggregationEvent",
                            "TransactionEvent",
                            "TransformationEvent",
                            "AssociationEvent",
                        ]
                    },
                },
            )
            flow = (
                await post(
                    "/items/epcis_outbound_flow",
                    {"connection": connection["id"], "epcis_query": "everything", "active": False},
                )
            )["data"]
            await session.patch(
                f"{base}/items/epcis_outbound_flow/{flow['id']}",
                data=orjson.dumps({"active": True}),
                headers={"Content-Type": "application/json"},
            )
            started = time.perf_counter()
            while partner.events < events:
                summary = await service.flows.outbound.run(flow["id"])
                if summary.outcome not in ("sent", "busy"):
                    raise SystemExit(f"flow ended {summary}")
            throughput = events / (time.perf_counter() - started)
            await session.patch(
                f"{base}/items/epcis_outbound_flow/{flow['id']}",
                data=orjson.dumps({"active": False}),
                headers={"Content-Type": "application/json"},
            )

            await post(
                "/v2/epcis/queries",
                {"name": "fresh", "query": {"EQ_bizStep": ["https://bench.example/latency"]}},
            )
            await post("/v2/epcis/queries/fresh/subscriptions", {"dest": url, "stream": True})
            socket = await session.ws_connect(f"{base}/v2/epcis/queries/fresh/events")
            websocket, webhook = [], []
            for _ in range(samples):
                event = factory.events(1)[0]
                event["bizStep"] = "https://bench.example/latency"
                partner.arrived.clear()
                sent = time.perf_counter()
                await post("/v2/epcis/capture", factory.document([event]))
                await socket.receive(timeout=10)
                websocket.append(time.perf_counter() - sent)
                await asyncio.wait_for(partner.arrived.wait(), 10)
                webhook.append(time.perf_counter() - sent)
            await socket.close()
    finally:
        await runner.cleanup()
        await service.stop()
    return {"throughput": throughput, "websocket": websocket, "webhook": webhook}


def _p(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100)[int(q) - 1] * 1000
        if len(values) > 1
        else values[0] * 1000
    )


def main() -> None:
    """Run on the chosen backends and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    backends = ("postgresql", "sqlite") if args.backend == "both" else (args.backend,)
    for backend in backends:
        with fresh_database(backend) as url:
            figures = asyncio.run(measure(url, args.events, args.samples))
        print(
            f"{backend}: flow {figures['throughput']:,.0f} events/s;"
            f" WebSocket latency p50 {_p(figures['websocket'], 50):.0f} ms,"
            f" p95 {_p(figures['websocket'], 95):.0f} ms;"
            f" webhook (stream) p50 {_p(figures['webhook'], 50):.0f} ms,"
            f" p95 {_p(figures['webhook'], 95):.0f} ms"
        )


if __name__ == "__main__":
    main()
