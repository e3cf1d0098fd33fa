"""The request a log record belongs to: its id, set around each request."""

import re
import uuid
from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from aiohttp import web

REQUEST_ID = web.RequestKey("request_id", str)
#: The id of the request being handled, for the application's log records.
current_request_id: ContextVar[str | None] = ContextVar("current_request_id", default=None)

#: An incoming X-Request-Id is kept when it is this plain (a proxy's or a client's id);
#: anything else could forge log lines or carry a secret, and is replaced.
_SANE = re.compile(r"[A-Za-z0-9._:-]{1,128}")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def request_id(request: web.BaseRequest) -> str:
    """The request's id: the caller's X-Request-Id if sane, else one made for it."""
    known = request.get(REQUEST_ID)
    if known is None:
        offered = request.headers.get("X-Request-Id", "")
        known = offered if _SANE.fullmatch(offered) else uuid.uuid4().hex
        request[REQUEST_ID] = known
    return known


@web.middleware
async def request_context(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Name the request in every record logged while it is handled."""
    token = current_request_id.set(request_id(request))
    try:
        return await handler(request)
    finally:
        current_request_id.reset(token)


async def echo_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer names its request, so a caller can quote it and we can find its logs."""
    response.headers["X-Request-Id"] = request_id(request)
