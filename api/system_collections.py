"""`/users`, `/roles`, `/policies`, `/permissions`, `/folders`, `/translations`,
`/notifications`: list, search, read, create, update and delete, one or many."""

from collections.abc import Callable, Coroutine
from typing import Any

from aiohttp import web

from api.keys import caller, service
from api.platform_requests import item_query, read_json, search_query
from api.platform_responses import data_response, no_content
from application.errors import InvalidPayload
from domain.access.collections import ROUTED_COLLECTIONS

View = Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]


def _written(items: list[dict[str, Any]] | None, many: bool) -> web.Response:
    # Directus answers 204 when the caller may write items but not read them back.
    if items is None:
        return no_content()
    return data_response(items if many else (items[0] if items else None))


def _views(collection: str) -> dict[str, View]:
    async def list_items(request: web.Request) -> web.Response:
        result = await service(request).items.read_many(
            caller(request), collection, item_query(request)
        )
        return data_response(result.items, result.meta)

    async def search_items(request: web.Request) -> web.Response:
        query, keys = search_query(await read_json(request))
        result = await service(request).items.read_many(caller(request), collection, query, keys)
        return data_response(result.items, result.meta)

    async def read_item(request: web.Request) -> web.Response:
        item = await service(request).items.read_one(
            caller(request), collection, request.match_info["key"], item_query(request)
        )
        return data_response(item)

    async def create_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        many = isinstance(body, list)
        items = await service(request).items.create(
            caller(request), collection, body if many else [body], item_query(request)
        )
        return _written(items, many)

    async def update_item(request: web.Request) -> web.Response:
        items = await service(request).items.update(
            caller(request),
            collection,
            [request.match_info["key"]],
            await read_json(request),
            item_query(request),
        )
        return _written(items, many=False)

    async def update_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        items = service(request).items
        if isinstance(body, list):
            updated = await items.update_each(
                caller(request), collection, body, item_query(request)
            )
            return _written(updated, many=True)
        keys = await _keys(request, body, "data")
        updated = await items.update(
            caller(request), collection, keys, body["data"], item_query(request)
        )
        return _written(updated, many=True)

    async def delete_item(request: web.Request) -> web.Response:
        await service(request).items.delete(
            caller(request), collection, [request.match_info["key"]]
        )
        return no_content()

    async def delete_items(request: web.Request) -> web.Response:
        body = await read_json(request)
        if isinstance(body, list) and not body:
            raise InvalidPayload("The body must name at least one key")
        keys = body if isinstance(body, list) else await _keys(request, body)
        if keys:
            await service(request).items.delete(caller(request), collection, keys)
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
        return await service(request).items.keys_matching(caller(request), collection, query)

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


def add_routes(app: web.Application) -> None:
    """Register the endpoints of every system collection."""
    for collection in ROUTED_COLLECTIONS:
        views = _views(collection)
        base = f"/{collection}"
        app.router.add_get(base, views["list"])
        app.router.add_route("SEARCH", base, views["search"])
        app.router.add_post(base, views["create"])
        app.router.add_patch(base, views["update_many"])
        app.router.add_delete(base, views["delete_many"])
        app.router.add_get(base + "/{key}", views["read"])
        app.router.add_patch(base + "/{key}", views["update_one"])
        app.router.add_delete(base + "/{key}", views["delete_one"])
