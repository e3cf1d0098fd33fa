"""`/server/ping` and `/server/health`."""

import orjson
from aiohttp import web

from api.keys import service

routes = web.RouteTableDef()


@routes.get("/server/ping")
async def ping(request: web.Request) -> web.Response:
    """Liveness: the process answers."""
    return web.Response(text="pong")


@routes.get("/server/health")
async def health(request: web.Request) -> web.Response:
    """Readiness: 200 when the database answers, 503 naming the failing check."""
    result = await service(request).health()
    if result.ok:
        return web.Response(body=orjson.dumps({"status": "ok"}), content_type="application/json")
    return web.Response(
        status=503,
        body=orjson.dumps({"status": "error", "checks": result.failing}),
        content_type="application/json",
    )
