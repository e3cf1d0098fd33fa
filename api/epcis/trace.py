"""`GET /trace`: the lineage of an item, on the platform API (Directus envelope and errors)."""

from aiohttp import web

from api.keys import caller, service
from api.platform_responses import data_response

routes = web.RouteTableDef()


@routes.get("/trace")
async def trace(request: web.Request) -> web.Response:
    """What an EPC or class went into and what went into it, at a moment."""
    found = await service(request).epcis.lineage.trace(caller(request), request.query)
    body: dict[str, object] = {"root": found.root, "nodes": found.nodes, "edges": found.edges}
    if found.truncated:
        body["truncated"] = True
    return data_response(body)
