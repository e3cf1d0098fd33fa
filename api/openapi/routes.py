"""`GET /server/specs/oas`: the OpenAPI document, to any caller, without the collections
the caller may not read."""

import orjson
from aiohttp import web

from api.keys import caller, service
from api.openapi.document import build_document

routes = web.RouteTableDef()


@routes.get("/server/specs/oas")
async def openapi(request: web.Request) -> web.Response:
    """The OpenAPI 3.1 document of both API families."""
    me = caller(request)

    def readable(collection: str) -> bool:
        return me.admin or me.access(collection, "read") is not None

    document = build_document(request.app, service(request).items.service.schema, readable)
    return web.Response(body=orjson.dumps(document), content_type="application/json")
