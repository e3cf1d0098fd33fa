"""Typed keys for what the aiohttp application and requests carry."""

from aiohttp import web

from application.access.event_scope import EventScope
from application.service.runtime import Tracepoint
from domain.access.policies import Accountability

TRACEPOINT = web.AppKey("tracepoint", Tracepoint)
ACCOUNTABILITY = web.RequestKey("accountability", Accountability)
EVENT_SCOPE: web.RequestKey[EventScope] = web.RequestKey("event_scope")


def service(request: web.Request) -> Tracepoint:
    """The running service behind a request."""
    return request.app[TRACEPOINT]


def caller(request: web.Request) -> Accountability:
    """Who makes the request (the public when nobody signed in)."""
    return request.get(ACCOUNTABILITY) or Accountability()


def event_scope(request: web.Request) -> EventScope:
    """The events an EPCIS request may read (None: all), set by the authentication."""
    return request[EVENT_SCOPE]
