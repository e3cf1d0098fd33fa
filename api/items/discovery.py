"""Schema discovery the Directus way: `/collections`, `/fields` and `/relations`, read
from the catalogue and limited to what the caller may read. The schema is fixed by the
code, so every write on them is FORBIDDEN."""

from aiohttp import web

from api.platform.keys import caller, service
from api.platform.responses import data_response
from application.service.errors import Forbidden

routes = web.RouteTableDef()

#: Paths that describe the schema, and the writes Directus takes on each.
SCHEMA_WRITES = {
    "/collections": ("POST", "PATCH"),
    "/collections/{collection}": ("PATCH", "DELETE"),
    "/fields/{collection}": ("POST", "PATCH"),
    "/fields/{collection}/{field}": ("PATCH", "DELETE"),
    "/relations": ("POST",),
    "/relations/{collection}/{field}": ("PATCH", "DELETE"),
}


@routes.get("/collections")
async def list_collections(request: web.Request) -> web.Response:
    """The collections the caller may read."""
    return data_response(service(request).items.discovery.collections(caller(request)))


@routes.get("/collections/{collection}")
async def read_collection(request: web.Request) -> web.Response:
    """One collection the caller may read."""
    discovery = service(request).items.discovery
    return data_response(discovery.collection(caller(request), request.match_info["collection"]))


@routes.get("/fields")
async def list_fields(request: web.Request) -> web.Response:
    """The readable fields of every readable collection."""
    return data_response(service(request).items.discovery.fields(caller(request)))


@routes.get("/fields/{collection}")
async def list_collection_fields(request: web.Request) -> web.Response:
    """The readable fields of one collection."""
    discovery = service(request).items.discovery
    return data_response(discovery.fields(caller(request), request.match_info["collection"]))


@routes.get("/fields/{collection}/{field}")
async def read_field(request: web.Request) -> web.Response:
    """One readable field."""
    match = request.match_info
    discovery = service(request).items.discovery
    return data_response(discovery.field(caller(request), match["collection"], match["field"]))


@routes.get("/relations")
async def list_relations(request: web.Request) -> web.Response:
    """The relations between what the caller may read."""
    return data_response(service(request).items.discovery.relations(caller(request)))


@routes.get("/relations/{collection}")
async def list_collection_relations(request: web.Request) -> web.Response:
    """The relations of one collection's many-to-one fields."""
    discovery = service(request).items.discovery
    return data_response(discovery.relations(caller(request), request.match_info["collection"]))


@routes.get("/relations/{collection}/{field}")
async def read_relation(request: web.Request) -> web.Response:
    """The relation of one many-to-one field."""
    match = request.match_info
    found = service(request).items.discovery.relations(
        caller(request), match["collection"], match["field"]
    )
    return data_response(found[0])


async def refuse_write(request: web.Request) -> web.Response:
    """Collections, fields and relations are made by the code, never by a request."""
    raise Forbidden(
        "The schema is fixed by the service: collections, fields and relations cannot be"
        " created, changed or deleted."
    )


def add_routes(app: web.Application) -> None:
    """Register the reads, and a refusal of each write Directus takes on these paths."""
    app.add_routes(routes)
    for path, methods in SCHEMA_WRITES.items():
        for method in methods:
            app.router.add_route(method, path, refuse_write)
