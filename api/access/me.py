"""`/users/me` and `/permissions/me`: the caller's own record and permissions."""

from aiohttp import web

from api.items.collection_views import KEY
from api.platform.keys import caller, service
from api.platform.requests import item_key, item_query, read_json
from api.platform.responses import data_response, no_content
from application.access.my_permissions import permissions_summary
from application.access.system_collections import EXTRA_PERMISSION_COLLECTIONS
from application.service.errors import Forbidden, InvalidCredentials

routes = web.RouteTableDef()


@routes.get("/users/me")
async def read_me(request: web.Request) -> web.Response:
    """The caller's user record; just its id when the caller may not read it."""
    me = caller(request)
    if me.user is None:
        raise InvalidCredentials()
    try:
        item = await service(request).items.service.read_one(
            me, "users", me.user, item_query(request)
        )
    except Forbidden:
        return data_response({"id": me.user})
    return data_response(item)


@routes.patch("/users/me")
async def update_me(request: web.Request) -> web.Response:
    """Change the caller's own record, within the caller's permissions."""
    me = caller(request)
    if me.user is None:
        raise InvalidCredentials()
    items = await service(request).items.service.update(
        me, "users", [me.user], await read_json(request), item_query(request)
    )
    return data_response(items[0]) if items else no_content()


@routes.get("/permissions/me")
async def my_permissions(request: web.Request) -> web.Response:
    """What the caller may do, per collection and action."""
    me = caller(request)
    if me.user is None:
        raise Forbidden()
    schema = service(request).items.service.schema
    collections = sorted([c.name for c in schema] + list(EXTRA_PERMISSION_COLLECTIONS))
    return data_response(permissions_summary(me, collections))


@routes.get("/permissions/me/{collection}")
@routes.get(f"/permissions/me/{{collection}}{KEY}")
async def my_item_permissions(request: web.Request) -> web.Response:
    """Whether the caller may update, delete and share one item (false when it does
    not exist: the answer never tells which); without a key, whether the caller holds
    each of these permissions on the collection at all."""
    me = caller(request)
    if me.user is None:
        raise Forbidden()
    items = service(request).items.service
    collection = request.match_info["collection"]
    key = item_key(request) if "key" in request.match_info else None
    return data_response(
        {
            action: {"access": await items.allows(me, collection, action, key)}
            for action in ("update", "delete", "share")
        }
    )


@routes.get("/policies/me/globals")
async def my_globals(request: web.Request) -> web.Response:
    """Whether the caller has app and admin access, and must use two-factor sign-in."""
    me = caller(request)
    return data_response(
        {"app_access": me.app, "admin_access": me.admin, "enforce_tfa": me.enforce_tfa}
    )


@routes.get("/roles/me")
async def my_roles(request: web.Request) -> web.Response:
    """The caller's role and its ancestors, read with the query; just their ids when the
    caller may not read roles."""
    me = caller(request)
    if not me.roles:
        return data_response([])
    try:
        result = await service(request).items.service.read_many(
            me, "roles", item_query(request), me.roles
        )
    except Forbidden:
        return data_response([{"id": role} for role in me.roles])
    return data_response(result.items)


@routes.post("/users/{key}/tfa/disable")
async def disable_users_tfa(request: web.Request) -> web.Response:
    """An administrator turns off another user's two-factor authentication."""
    await service(request).access.user_flows.reset_tfa(caller(request), request.match_info["key"])
    return no_content()
