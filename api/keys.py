"""Typed keys for what the aiohttp application and requests carry."""

from aiohttp import web

from application.runtime import Tracepoint
from domain.access.policies import Accountability

TRACEPOINT = web.AppKey("tracepoint", Tracepoint)
ACCOUNTABILITY = web.RequestKey("accountability", Accountability)


def service(request: web.Request) -> Tracepoint:
    """The running service behind a request."""
    return request.app[TRACEPOINT]


def caller(request: web.Request) -> Accountability:
    """Who makes the request (the public when nobody signed in)."""
    return request.get(ACCOUNTABILITY) or Accountability()
