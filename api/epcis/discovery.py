"""Discovery (REST binding): `OPTIONS` on every EPCIS path says which methods it allows
and what the repository serves: versions, formats, extensions, vendor version."""

from collections.abc import Awaitable, Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version

from aiohttp import hdrs, web

from api.epcis.negotiation import VERSION
from api.platform.families import is_epcis
from api.platform.keys import caller, event_scope, service
from application.access.event_scope import reads_by_rule
from domain.epcis.cbv_format import CbvXmlFormat
from domain.epcis.epc_format import EpcFormat

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: The order `Allow` lists methods in.
_METHODS = ("OPTIONS", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


@cache
def vendor_version() -> str:
    """Tracepoint's version, from its package metadata."""
    try:
        return version("tracepoint")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


async def allowed_methods(request: web.Request) -> set[str]:
    """The methods the routes of the request's path take (none: no route has the path)."""
    allowed: set[str] = set()
    for resource in request.app.router.resources():
        _, methods = await resource.resolve(request)
        if not methods:
            continue
        for route in resource:
            if route.method != hdrs.METH_ANY:
                allowed.add(route.method)
            elif isinstance(route.handler, type) and issubclass(route.handler, web.View):
                # A class-based view takes the methods it defines.
                allowed.update(m for m in _METHODS if hasattr(route.handler, m.lower()))
    return allowed


async def discovery_headers(request: web.Request, allowed: set[str]) -> dict[str, str]:
    """The headers of the binding's discovery answer for a path taking `allowed`."""
    headers = {
        "Allow": ", ".join(m for m in _METHODS if m in allowed | {"OPTIONS"}),
        "GS1-EPCIS-Version": VERSION,
        "GS1-EPCIS-Min": VERSION,
        "GS1-EPCIS-Max": VERSION,
        "GS1-CBV-Version": VERSION,
        "GS1-CBV-Min": VERSION,
        "GS1-CBV-Max": VERSION,
        "GS1-EPC-Format": ", ".join(EpcFormat),
        "GS1-CBV-XML-Format": ", ".join(CbvXmlFormat),
        "GS1-Vendor-Version": vendor_version(),
    }
    # The namespaces of captured documents name the parties that use the repository:
    # only a caller who may read every event of its accounts learns those they bound.
    who = caller(request)
    if event_scope(request) is None or (event_scope(request) and not reads_by_rule(who)):
        known = await service(request).epcis.prefixes.known(who.accounts)
        if known:
            headers["GS1-Extensions"] = ", ".join(f"{p}={ns}" for p, ns in known.items())
    return headers


@web.middleware
async def epcis_discovery(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer `OPTIONS` on any EPCIS path a route serves: 204 with the discovery headers,
    plus what a route's own `OPTIONS` adds (the capture limits). Unknown paths are 404.

    A path naming a value (`/epcs/{id}`) is answered alike whether the value exists or
    not: discovery needs no rights, so it must not tell which values are stored.
    """
    if request.method != "OPTIONS" or not is_epcis(request):
        return await handler(request)
    allowed = await allowed_methods(request)
    if not allowed:
        return await handler(request)
    response: web.StreamResponse = web.Response(status=204)
    if "OPTIONS" in allowed:
        response = await handler(request)
    response.headers.update(await discovery_headers(request, allowed))
    return response
