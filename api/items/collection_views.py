"""The views of a collection served the Directus way: list, search, read, create, update
and delete, one or many. System collections, `/items/<collection>` and the history
collections all use them."""

from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from api.items.exports import export_response
from api.platform.keys import caller, service
from api.platform.requests import as_of, item_key, item_query, read_json, search_query
from api.platform.responses import data_response, no_content
from application.service.errors import InvalidPayload
from domain.collections.item_query import ItemQuery

View = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]


def _written(items: list[dict[str, Any]] | None, many: bool) -> web.Response:
    # Directus answers 204 when the caller may write items but not read them back.
    if items is None:
        return no_content()
    return data_response(items if many else (items[0] if items else None))


def _read(
    collection: str, query: ItemQuery, data: Any, meta: dict[str, int] | None = None
) -> web.Response:
    # `export` answers the same data as a file to download.
    if query.export is not None:
        return export_response(collection, query.export, data, datetime.now(UTC))
    return data_response(data, meta)


def collection_views(name: str | Callable[[web.Request], str]) -> dict[str, View]:
    """The views of one collection, or of the collection each request names."""
    collection_of: Callable[[web.Request], str] = name if callable(name) else (lambda request: name)

    async def list_items(request: web.Request) -> web.Response:
        collection, query = collection_of(request), item_query(request)
        result = await service(request).items.service.read_many(caller(request), collection, query)
        return _read(collection, query, result.items, result.meta)

    async def search_items(request: web.Request) -> web.Response:
        query, keys = search_query(await read_json(request))
        collection = collection_of(request)
        result = await service(request).items.service.read_many(
            caller(request), collection, query, keys
        )
        return _read(collection, query, result.items, result.meta)

    async def read_item(request: web.Request) -> web.Response:
        items = service(request).items.service
        key, query = item_key(request), item_query(request)
        if "as_of" in request.query:
            moment = as_of(request.query["as_of"])
            item = await items.read_as_of(
                caller(request), collection_of(request), key, moment, query
            )
        else:
            item = await items.read_one(caller(request), collection_of(request), key, query)
        return _read(collection_of(request), query, item)

    async def create_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        many = isinstance(body, list)
        items = await service(request).items.service.create(
            caller(request), collection_of(request), body if many else [body], item_query(request)
        )
        return _written(items, many)

    async def update_item(request: web.Request) -> web.Response:
        items = await service(request).items.service.update(
            caller(request),
            collection_of(request),
            [item_key(request)],
            await read_json(request),
            item_query(request),
        )
        return _written(items, many=False)

    async def update_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        items = service(request).items.service
        if isinstance(body, list):
            updated = await items.update_each(
                caller(request), collection_of(request), body, item_query(request)
            )
            return _written(updated, many=True)
        keys = await _keys(request, body, "data")
        updated = await items.update(
            caller(request), collection_of(request), keys, body["data"], item_query(request)
        )
        return _written(updated, many=True)

    async def delete_item(request: web.Request) -> web.Response:
        await service(request).items.service.delete(
            caller(request), collection_of(request), [item_key(request)]
        )
        return no_content()

    async def delete_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        if isinstance(body, list) and not body:
            raise InvalidPayload("The body must name at least one key")
        keys = body if isinstance(body, list) else await _keys(request, body)
        if keys:
            await service(request).items.service.delete(
                caller(request), collection_of(request), keys
            )
        return no_content()

    async def _keys(request: web.Request, body: Any, *required: str) -> list[Any]:
        """The keys a batch body names: `keys`, or the items a `query` matches."""
        allowed = {"keys", "query", *required}
        if not isinstance(body, dict) or set(body) - allowed or not set(required) <= set(body):
            raise InvalidPayload(f"The body takes {', '.join(sorted(allowed))}")
        if ("keys" in body) == ("query" in body):
            raise InvalidPayload('Give either "keys" or "query"')
        if "keys" in body:
            if not isinstance(body["keys"], list) or not body["keys"]:
                raise InvalidPayload('"keys" must be a non-empty list')
            return list(body["keys"])
        query, _ = search_query({"query": body["query"]})
        return await service(request).items.service.keys_matching(
            caller(request), collection_of(request), query
        )

    return {
        "list": list_items,
        "search": search_items,
        "read": read_item,
        "create": create_items,
        "update_one": update_item,
        "update_many": update_items,
        "delete_one": delete_item,
        "delete_many": delete_items,
    }


#: The path of one item below its collection: the rest of the path is the key, so a key
#: holding `/` (`/01/09506000134352`) is found sent as is (`/items/product//01/…`, as the
#: Directus SDKs send it) or percent-encoded (`/items/product/%2F01%2F…`): aiohttp matches
#: the encoded path and decodes the key. Routes with a suffix after the key
#: (`/items/lot/<key>/publish`) still win, as aiohttp tries longer static prefixes first.
KEY = "/{key:.+}"

#: Each view's method and path below a collection's base path.
ROUTES = (
    ("GET", "", "list"),
    ("SEARCH", "", "search"),
    ("POST", "", "create"),
    ("PATCH", "", "update_many"),
    ("DELETE", "", "delete_many"),
    ("GET", KEY, "read"),
    ("PATCH", KEY, "update_one"),
    ("DELETE", KEY, "delete_one"),
)


def add_collection_routes(app: web.Application, base: str, views: dict[str, View]) -> None:
    """Register every view of a collection below `base`."""
    for method, path, view in ROUTES:
        app.router.add_route(method, base + path, views[view])
