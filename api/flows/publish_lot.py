"""`POST /items/lot/<pk>/publish`: the Publish Lot flow (spec §1 rule 5)."""

from aiohttp import web

from api.items.collection_views import KEY
from api.platform.keys import caller, service
from api.platform.requests import item_key
from api.platform.responses import data_response

routes = web.RouteTableDef()


@routes.post(f"/items/lot{KEY}/publish")
async def publish_lot(request: web.Request) -> web.Response:
    """Capture the lot's commissioning event (once) and set its status to published."""
    published = await service(request).flows.lots.publish(caller(request), item_key(request))
    return data_response(
        {"lot": published.lot, "eventID": published.event_id, "created": published.created}
    )
