"""The page-numbered lists of spec §4.7 (`/v1/products`, `/v1/suppliers`): which items each
holds, what its sort names mean, and one page of it read through the items service."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from application.items.service import ItemsService
from application.service.errors import InvalidQuery
from domain.access.policies import Accountability
from domain.collections.item_query import query_from_object
from domain.collections.query_errors import QueryError
from domain.collections.schema import Collection, FieldType
from domain.masterdata.organisations import ORGANISATION
from domain.masterdata.products import PRODUCT

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
#: A supplier is an organisation whose roles hold SUPPLIER.
SUPPLIERS = PagedList(
    ORGANISATION,
    "suppliers",
    "organisation_name",
    {"organisation_role": {"_contains": "SUPPLIER"}},
)


@dataclass(frozen=True)
class Page:
    """One page of a list: its items (as stored) and how many match in all."""

    items: list[dict[str, Any]]
    page: int
    per_page: int
    total: int

    @property
    def total_pages(self) -> int:
        """How many pages of this size the matching items fill."""
        return math.ceil(self.total / self.per_page)


async def read_page(
    items: ItemsService,
    caller: Accountability,
    listing: PagedList,
    *,
    page: int,
    per_page: int,
    sort: str,
    search: str = "",
) -> Page:
    """One page of the list as the caller may read it; `sort` is a sort name, `-` first to
    descend. InvalidQuery for a sort name the list does not have."""
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
    if search:
        query["search"] = search
    try:
        parsed = query_from_object(query)
    except QueryError as exc:
        raise InvalidQuery(str(exc)) from exc
    result = await items.read_many(caller, listing.collection.name, parsed)
    total = (result.meta or {}).get("filter_count", 0)
    return Page(result.items, page, per_page, total)
