"""`/server/ping`, `/server/health` and `/server/info`."""

import orjson
from aiohttp import web

from api.epcis.discovery import vendor_version
from api.platform.keys import caller, service
from api.platform.responses import data_response
from application.operations.server_info import server_info
from application.service.errors import DatabaseUnavailable

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
        # Outages are mostly over in seconds (a restart, a fail-over).
        headers={"Retry-After": str(DatabaseUnavailable.retry_after)},
    )


@routes.get("/server/info")
async def info(request: web.Request) -> web.Response:
    """The project for everyone; limits for signed-in users; the version for admins."""
    tracepoint = service(request)
    return data_response(server_info(caller(request), tracepoint.settings, vendor_version()))
