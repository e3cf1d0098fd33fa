"""`/v1/products` and `/v1/suppliers` (spec §4.7): page-numbered lists with camelCase
fields, for clients that want a plain paginated list rather than the query language."""

import re
from typing import Any

import orjson
from aiohttp import web

from api.platform.keys import caller, service
from application.items.paged_lists import PRODUCTS, SUPPLIERS, PagedList, camel, read_page
from application.service.errors import InvalidQuery

PER_PAGE_DEFAULT = 50
PER_PAGE_MAX = 200
_WHOLE = re.compile(r"[0-9]{1,9}")


def _whole(request: web.Request, name: str, default: int, maximum: int | None = None) -> int:
    raw = request.query.getall(name, [])
    if not raw:
        return default
    if len(raw) > 1 or not _WHOLE.fullmatch(raw[0].strip()) or int(raw[0]) < 1:
        raise InvalidQuery(f'"{name}" must be one whole number of at least 1')
    value = int(raw[0])
    if maximum is not None and value > maximum:
        raise InvalidQuery(f'"{name}" may be at most {maximum}')
    return value


def _view(listing: PagedList) -> Any:
    async def view(request: web.Request) -> web.Response:
        page = await read_page(
            service(request).items.service,
            caller(request),
            listing,
            page=_whole(request, "page", 1),
            per_page=_whole(request, "per_page", PER_PAGE_DEFAULT, PER_PAGE_MAX),
            sort=request.query.get("sort", "createdAt").strip(),
            search=request.query.get("search", "").strip(),
        )
        body = {
            listing.key: [{camel(k): v for k, v in item.items()} for item in page.items],
            "pagination": {
                "page": page.page,
                "perPage": page.per_page,
                "total": page.total,
                "totalPages": page.total_pages,
            },
        }
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    return view


routes = web.RouteTableDef()
routes.get("/v1/products")(_view(PRODUCTS))
routes.get("/v1/suppliers")(_view(SUPPLIERS))
