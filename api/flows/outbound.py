"""`POST /items/epcis_outbound_flow/<id>/run` and `GET …/<id>/runs`: run a flow now, and
its delivery log, newest first."""

import dataclasses

from aiohttp import web

from api.items.collection_views import KEY
from api.platform.keys import caller, service
from api.platform.requests import item_key, item_query
from api.platform.responses import data_response

routes = web.RouteTableDef()


@routes.post(f"/items/epcis_outbound_flow{KEY}/run")
async def run_flow(request: web.Request) -> web.Response:
    """Deliver what the flow has to deliver now; answers what it did."""
    summary = await service(request).flows.control.run_now(caller(request), item_key(request))
    return data_response(dataclasses.asdict(summary))


@routes.get(f"/items/epcis_outbound_flow{KEY}/runs")
async def flow_runs(request: web.Request) -> web.Response:
    """The flow's delivery attempts (time, events, HTTP status, error)."""
    result = await service(request).flows.control.runs(
        caller(request), item_key(request), item_query(request)
    )
    return data_response(result.items, result.meta)
