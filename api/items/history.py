"""`/activity` and `/revisions`: the history of the platform records, read-only.

They answer list, search and read exactly as the system collections do (same query
parameters, same permissions: admins read everything, others need a `read` permission
on the collection); every other method answers 405.
"""

from aiohttp import web

from api.items.collection_views import KEY, collection_views
from domain.records.history import HISTORY_COLLECTIONS


def add_routes(app: web.Application) -> None:
    """Register the read-only endpoints of the history collections."""
    for collection in (c.name for c in HISTORY_COLLECTIONS):
        views = collection_views(collection)
        base = f"/{collection}"
        app.router.add_get(base, views["list"])
        app.router.add_route("SEARCH", base, views["search"])
        app.router.add_get(base + KEY, views["read"])
