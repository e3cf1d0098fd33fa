"""The GS1 Digital Link resolver: `GET /01/<gtin>/21/<serial>`, `/00/<sscc>`,
`/8003/<grai>` and `/<short_code>` (spec §1, identifier codes). Public: anyone who scans
a code may resolve it; what it answers is what a label shows."""

import math

import orjson
from aiohttp import web

from api.platform.keys import TRACEPOINT
from api.platform.requests import client_ip
from application.codes.resolver import ScanRequest
from application.service.errors import InvalidQuery

routes = web.RouteTableDef()


def _coordinate(request: web.Request, names: tuple[str, ...], limit: float) -> float | None:
    """A latitude or longitude from the query (first of `names` present), or None."""
    for name in names:
        text = request.query.get(name)
        if text is None:
            continue
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or abs(value) > limit:
            raise InvalidQuery(f'"{name}" must be a number from {-limit:g} to {limit:g}')
        return value
    return None


def _country(request: web.Request, header: str) -> str | None:
    value = request.headers.get(header, "").strip().upper()
    # CDNs send XX or T1 for unknown and Tor; only a real alpha-2 code is a place.
    return value if len(value) == 2 and value.isalpha() and value != "XX" else None


def _wants_json(request: web.Request) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/json" in accept or request.query.get("linkType") == "all"


@routes.get("/01/{gtin}/21/{serial}")
@routes.get("/01/{gtin}/10/{lot}/21/{serial}")
@routes.get("/01/{gtin}/21/{serial}/10/{lot}")
@routes.get("/00/{sscc}")
@routes.get("/8003/{grai}")
@routes.get(r"/{code:[0-9A-Za-z]{6,20}}")
async def resolve(request: web.Request) -> web.StreamResponse:
    """Redirect to the code's lot, product or location page, or describe the code."""
    tracepoint = request.app[TRACEPOINT]
    settings = tracepoint.settings
    scan = ScanRequest(
        path=request.rel_url.raw_path,
        query_string=request.rel_url.raw_query_string,
        ip=client_ip(request, settings.trust_proxy),
        user_agent=request.headers.get("User-Agent"),
        latitude=_coordinate(request, ("lat", "latitude"), 90),
        longitude=_coordinate(request, ("lng", "lon", "longitude"), 180),
        country=_country(request, settings.scan_country_header),
    )
    resolution = await tracepoint.codes.resolver.resolve(scan)
    if resolution is None:
        # As any path that names nothing: a short code is one segment like a route's.
        raise web.HTTPNotFound()
    if resolution.redirect is not None and not _wants_json(request):
        # 307 as GS1 resolvers answer: the client comes back for each scan.
        raise web.HTTPTemporaryRedirect(resolution.redirect)
    response = web.Response(
        body=orjson.dumps({"data": resolution.description}), content_type="application/json"
    )
    response.headers["Vary"] = "Accept"
    return response
