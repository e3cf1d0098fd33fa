"""`/v1/products` and `/v1/suppliers` (spec §4.7): page-numbered lists with camelCase
fields, for clients that want a plain paginated list rather than the query language."""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from api.keys import caller, service
from application.errors import InvalidQuery
from domain.collections.item_query import query_from_object
from domain.collections.query_errors import QueryError
from domain.collections.schema import Collection, FieldType
from domain.masterdata.organisations import ORGANISATION
from domain.masterdata.products import PRODUCT

PER_PAGE_DEFAULT = 50
PER_PAGE_MAX = 200
_WHOLE = re.compile(r"[0-9]{1,9}")
#: Audit fields under the names such lists usually carry.
_RENAMED = {
    "date_created": "createdAt",
    "date_updated": "updatedAt",
    "user_created": "createdBy",
    "user_updated": "updatedBy",
}
_SORTABLE = frozenset(
    {FieldType.STRING, FieldType.INTEGER, FieldType.FLOAT, FieldType.DATETIME, FieldType.DATE}
)


def camel(name: str) -> str:
    """A field's name in these lists: `product_name` → `productName`."""
    if name in _RENAMED:
        return _RENAMED[name]
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclass(frozen=True)
class PagedList:
    """One list: the collection behind it, its key in the answer, which items it holds
    and what `sort=name` means."""

    collection: Collection
    key: str
    name_field: str
    filter: Mapping[str, Any] | None = None

    def sort_field(self, public: str) -> str:
        """The field behind a sort name: `name`, or any sortable field in camelCase."""
        if public == "name":
            return self.name_field
        for field in self.collection.fields:
            if camel(field.name) == public and field.type in _SORTABLE:
                return field.name
        names = sorted(
            {"name"} | {camel(f.name) for f in self.collection.fields if f.type in _SORTABLE}
        )
        raise InvalidQuery(f'"sort" must name one of {", ".join(names)}, with "-" to descend')


PRODUCTS = PagedList(PRODUCT, "products", "product_name")
SUPPLIERS = PagedList(
    ORGANISATION,
    "suppliers",
    "organisation_name",
    {"organisation_role": {"_contains": "SUPPLIER"}},
)


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
        page = _whole(request, "page", 1)
        per_page = _whole(request, "per_page", PER_PAGE_DEFAULT, PER_PAGE_MAX)
        sort = request.query.get("sort", "createdAt").strip()
        descending = sort.startswith("-")
        field = listing.sort_field(sort.lstrip("-"))
        query: dict[str, Any] = {
            "fields": ["*"],
            # The key breaks ties, so pages never overlap or skip.
            "sort": [("-" if descending else "") + field, listing.collection.primary_key],
            "limit": per_page,
            "page": page,
            "meta": ["filter_count"],
        }
        if listing.filter is not None:
            query["filter"] = dict(listing.filter)
        search = request.query.get("search", "").strip()
        if search:
            query["search"] = search
        try:
            parsed = query_from_object(query)
        except QueryError as exc:
            raise InvalidQuery(str(exc)) from exc
        result = await service(request).items.service.read_many(
            caller(request), listing.collection.name, parsed
        )
        total = (result.meta or {}).get("filter_count", 0)
        body = {
            listing.key: [{camel(k): v for k, v in item.items()} for item in result.items],
            "pagination": {
                "page": page,
                "perPage": per_page,
                "total": total,
                "totalPages": math.ceil(total / per_page),
            },
        }
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    return view


routes = web.RouteTableDef()
routes.get("/v1/products")(_view(PRODUCTS))
routes.get("/v1/suppliers")(_view(SUPPLIERS))
