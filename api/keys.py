"""Typed keys for what the aiohttp application and requests carry."""

from aiohttp import web

from application.authentication import Principal
from application.runtime import Tracepoint

TRACEPOINT = web.AppKey("tracepoint", Tracepoint)
PRINCIPAL = web.RequestKey("principal", Principal)


def service(request: web.Request) -> Tracepoint:
    """The running service behind a request."""
    return request.app[TRACEPOINT]


def principal(request: web.Request) -> Principal | None:
    """The authenticated caller of a request, if any."""
    return request.get(PRINCIPAL)
