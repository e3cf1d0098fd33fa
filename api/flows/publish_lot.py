"""`POST /items/lot/<pk>/publish`: the Publish Lot flow (spec §1 rule 5)."""

from aiohttp import web

from api.keys import caller, service
from api.platform_responses import data_response

routes = web.RouteTableDef()


@routes.post("/items/lot/{key}/publish")
async def publish_lot(request: web.Request) -> web.Response:
    """Capture the lot's commissioning event (once) and set its status to published."""
    published = await service(request).flows.lots.publish(
        caller(request), request.match_info["key"]
    )
    return data_response(
        {"lot": published.lot, "eventID": published.event_id, "created": published.created}
    )
