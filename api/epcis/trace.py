"""`GET /trace`: the lineage of an item, on the platform API (Directus envelope and errors)."""

from typing import Any

from aiohttp import web

from api.platform.keys import caller, service
from api.platform.responses import data_response
from application.epcis.lineage import TraceEdge, TraceNode

routes = web.RouteTableDef()


@routes.get("/trace")
async def trace(request: web.Request) -> web.Response:
    """What an EPC or class went into and what went into it, at a moment."""
    found = await service(request).epcis.lineage.trace(caller(request), request.query)
    body: dict[str, Any] = {
        "root": found.root,
        "nodes": [_node(n) for n in found.nodes],
        "edges": [_edge(e) for e in found.edges],
    }
    if found.truncated:
        body["truncated"] = True
    return data_response(body)


def _node(node: TraceNode) -> dict[str, Any]:
    return {
        "id": node.id,
        "kind": node.kind,
        "digital_link": node.digital_link,
        "eventTime": node.event_time,
        "bizStep": node.biz_step,
        "disposition": node.disposition,
        "bizLocation": node.biz_location,
        "readPoint": node.read_point,
        "parent": node.parent,
    }


def _edge(edge: TraceEdge) -> dict[str, Any]:
    return {
        "from": edge.source,
        "to": edge.target,
        "relation": edge.relation,
        "eventID": edge.event_id,
        "eventTime": edge.event_time,
        "until": edge.until,
    }
