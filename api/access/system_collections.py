"""`/users`, `/roles`, `/policies`, `/permissions`, `/folders`, `/translations`,
`/notifications`: list, search, read, create, update and delete, one or many."""

from aiohttp import web

from api.items.collection_views import add_collection_routes, collection_views
from domain.access.collections import ROUTED_COLLECTIONS


def add_routes(app: web.Application) -> None:
    """Register the endpoints of every system collection."""
    for collection in ROUTED_COLLECTIONS:
        add_collection_routes(app, f"/{collection}", collection_views(collection))
