"""`GET /server/specs/oas`: the OpenAPI document, to any caller, without the collections
the caller may not read."""

import weakref

import orjson
from aiohttp import web

from api.openapi.document import build_document
from api.platform.keys import caller, service

routes = web.RouteTableDef()

#: Each application's documents by the collections they show: building one takes tens of
#: milliseconds of the event loop, and routes and catalogue are fixed once it serves.
_DOCUMENTS: "weakref.WeakKeyDictionary[web.Application, dict[frozenset[str], bytes]]" = (
    weakref.WeakKeyDictionary()
)
#: Documents kept per application (one per distinct set of readable collections).
_KEPT = 32


@routes.get("/server/specs/oas")
async def openapi(request: web.Request) -> web.Response:
    """The OpenAPI 3.1 document of both API families."""
    me = caller(request)
    schema = service(request).items.service.schema
    shown = frozenset(c.name for c in schema if me.admin or me.access(c.name, "read") is not None)
    documents = _DOCUMENTS.setdefault(request.app, {})
    if shown not in documents:
        if len(documents) >= _KEPT:
            documents.pop(next(iter(documents)))
        documents[shown] = orjson.dumps(build_document(request.app, schema, shown))
    return web.Response(body=documents[shown], content_type="application/json")
