"""The REST binding's resources: `GET /v2/epcis` (the top-level list), the value
collections (`/eventTypes`, `/epcs`, `/bizSteps`, `/bizLocations`, `/readPoints`,
`/dispositions`), each value (`/{resource}/{id}`) and its events (`/{resource}/{id}/events`).
"""

from urllib.parse import urlencode

from aiohttp import web

from api.epcis.negotiation import negotiated
from api.epcis.queries import page_response
from api.epcis.responses import json_response
from api.platform.keys import event_scope, service
from application.epcis.event_queries import PAGING_PARAMETERS
from application.service.errors import NotFound
from domain.epcis.event_query import QueryParameterError
from domain.epcis.outbound import EPCIS_CONTEXT
from domain.epcis.query_curies import extension_prefixes
from domain.epcis.resources import TOP_LEVEL_RESOURCES, VALUE_PARAMETERS

routes = web.RouteTableDef()

_RESOURCE = "{resource:" + "|".join(VALUE_PARAMETERS) + "}"


def _collection(members: list[str]) -> dict[str, object]:
    return {"@context": [EPCIS_CONTEXT], "type": "Collection", "member": members}


def _prefixes(request: web.Request) -> dict[str, str] | None:
    header = request.headers.get("GS1-Extensions")
    return extension_prefixes(header) if header else None


@routes.get("/v2/epcis")
async def top_level(request: web.Request) -> web.Response:
    """The top-level resources of the EPCIS API."""
    return json_response(_collection(list(TOP_LEVEL_RESOURCES)))


@routes.get(f"/v2/epcis/{_RESOURCE}")
async def collection(request: web.Request) -> web.Response:
    """The distinct values of one kind held by the events the caller may read, paged
    like `/events`."""
    resource = request.match_info["resource"]
    paging: dict[str, list[str]] = {}
    for key, value in request.query.items():
        if key not in PAGING_PARAMETERS:
            raise QueryParameterError(f"{key}: /{resource} takes only perPage and nextPageToken")
        paging.setdefault(key, []).append(value)
    epc_format = negotiated(request).epc_format
    page = await service(request).epcis.resources.values(
        resource, paging, event_scope(request), epc_format
    )
    headers = {}
    if page.epc_format is not None:
        headers["GS1-EPC-Format"] = page.epc_format.value
    if page.next_page_token:
        params = [(k, v) for k, v in request.query.items() if k != "nextPageToken"]
        params.append(("nextPageToken", page.next_page_token))
        headers["Link"] = f'<{request.url.with_query(None)}?{urlencode(params)}>; rel="next"'
    return json_response(_collection(page.members), headers=headers)


@routes.get(f"/v2/epcis/{_RESOURCE}/{{id}}")
async def member(request: web.Request) -> web.Response:
    """One value: its sub-resources (`events`), or 404 when no event the caller may read
    holds it."""
    resource, value = request.match_info["resource"], request.match_info["id"]
    found = await service(request).epcis.resources.exists(
        resource, value, event_scope(request), _prefixes(request)
    )
    if not found:
        raise NotFound(f"No {resource} member '{value}'")
    return json_response(_collection(["events"]))


@routes.get(f"/v2/epcis/{_RESOURCE}/{{id}}/events")
async def member_events(request: web.Request) -> web.Response:
    """The events holding one value, filtered further by any query parameters and paged
    like `/events`."""
    resource, value = request.match_info["resource"], request.match_info["id"]
    params: dict[str, list[str]] = {}
    paging: dict[str, list[str]] = {}
    for key, item in request.query.items():
        (paging if key in PAGING_PARAMETERS else params).setdefault(key, []).append(item)
    page = await service(request).epcis.resources.events(
        resource, value, params, paging, event_scope(request), _prefixes(request)
    )
    return await page_response(request, page, "SimpleEventQuery")
