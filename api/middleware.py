"""Authentication and error handling around every request."""

import logging
from collections.abc import Awaitable, Callable

import orjson
from aiohttp import web

from api.epcis_responses import epcis_exception
from api.keys import PRINCIPAL, service

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
EPCIS_PREFIX = "/v2/epcis"


def _is_epcis(request: web.Request) -> bool:
    return request.path == EPCIS_PREFIX or request.path.startswith(EPCIS_PREFIX + "/")


def platform_error(status: int, code: str, message: str) -> web.Response:
    """The platform API's error envelope: `{"errors": [{"message", "extensions": {"code"}}]}`."""
    body = {"errors": [{"message": message, "extensions": {"code": code}}]}
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json")


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn routing failures and unexpected errors into each API family's error format."""
    if "\x00" in request.path:
        # No identifier contains NUL, and PostgreSQL refuses to compare with one.
        if _is_epcis(request):
            return epcis_exception(404, "NoSuchResourceException", "No such resource")
        return platform_error(404, "ROUTE_NOT_FOUND", "No such resource")
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        exception = {404: "NoSuchResourceException", 405: "ValidationException"}.get(
            exc.status, "ValidationException"
        )
        message = exc.reason if exc.status != 404 else f"No resource at {request.path}"
        if _is_epcis(request):
            return epcis_exception(exc.status, exception, message)
        code = {404: "ROUTE_NOT_FOUND", 405: "INVALID_PAYLOAD"}.get(exc.status, "INVALID_PAYLOAD")
        return platform_error(exc.status, code, message)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        if _is_epcis(request):
            return epcis_exception(500, "ImplementationException", "An internal error occurred")
        return platform_error(500, "INTERNAL_SERVER_ERROR", "An internal error occurred")


@web.middleware
async def epcis_authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every `/v2/epcis` request carries `Authorization: Bearer <static token>`."""
    if not _is_epcis(request):
        return await handler(request)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    challenge = {"WWW-Authenticate": 'Bearer realm="tracepoint"'}
    if scheme.lower() != "bearer" or not token.strip():
        return epcis_exception(
            401,
            "SecurityException",
            "Authentication required: send Authorization: Bearer <static token>",
            challenge,
        )
    caller = await service(request).authenticator.by_static_token(token.strip())
    if caller is None:
        return epcis_exception(401, "SecurityException", "The token is not valid", challenge)
    request[PRINCIPAL] = caller
    return await handler(request)
