"""`/items/<collection>`: the item collections of spec §4.1, one generic set of views.

A primary key holding `/` (`/01/09506000134352`) is the rest of the path, sent as is or
percent-encoded (see `KEY`). System collections are served at their own paths, never here.
"""

from aiohttp import web

from api.items.collection_views import add_collection_routes, collection_views
from application.service.errors import Forbidden
from domain.masterdata.catalogue import MASTER_DATA_COLLECTIONS
from domain.masterdata.tenancy import ACCOUNT

#: `account` exists in multi-tenant installations only; elsewhere it answers 403 like
#: any collection the schema does not hold.
_SERVED = frozenset({*(c.name for c in MASTER_DATA_COLLECTIONS), ACCOUNT.name})


def _collection(request: web.Request) -> str:
    name = request.match_info["collection"]
    if name not in _SERVED:
        raise Forbidden(
            f'You don\'t have permission to access collection "{name}" or it does not exist.'
        )
    return name


def add_routes(app: web.Application) -> None:
    """Register `/items/<collection>` and `/items/<collection>/<pk>`."""
    add_collection_routes(app, "/items/{collection}", collection_views(_collection))


def served_collections() -> frozenset[str]:
    """The collections `/items/<collection>` serves (where the schema holds them)."""
    return _SERVED
