"""The platform API's envelopes: `{"data": ...}` on success, Directus's error list else."""

from typing import Any

import orjson
from aiohttp import web

from application.service.errors import PlatformError

#: HTTP status of each error code, as Directus answers them.
STATUS = {
    "FORBIDDEN": 403,
    "INVALID_PAYLOAD": 400,
    "INVALID_QUERY": 400,
    "INVALID_CREDENTIALS": 401,
    "INVALID_OTP": 401,
    "INVALID_TOKEN": 403,
    "TOKEN_EXPIRED": 401,
    "USER_SUSPENDED": 401,
    "RECORD_NOT_UNIQUE": 400,
    "INVALID_FOREIGN_KEY": 400,
    "FAILED_VALIDATION": 400,
    "REQUESTS_EXCEEDED": 429,
    "UNPROCESSABLE_CONTENT": 422,
    "ROUTE_NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "CONTENT_TOO_LARGE": 413,
    "SERVICE_UNAVAILABLE": 503,
    "INVALID_PROVIDER": 403,
    "INVALID_PROVIDER_CONFIG": 503,
}


def platform_error(
    status: int, code: str, message: str, extensions: dict[str, Any] | None = None
) -> web.Response:
    """One error in the platform envelope."""
    body = {"errors": [{"message": message, "extensions": {**(extensions or {}), "code": code}}]}
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json")


def error_response(exc: PlatformError) -> web.Response:
    """The answer to a use case's failure."""
    response = platform_error(STATUS.get(exc.code, 500), exc.code, exc.message, exc.extensions)
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def data_response(data: Any, meta: dict[str, int] | None = None, status: int = 200) -> web.Response:
    """`{"data": ...}`, with `meta` when counts were asked for."""
    body: dict[str, Any] = {"data": data}
    if meta is not None:
        body["meta"] = meta
    return web.Response(status=status, body=orjson.dumps(body), content_type="application/json")


def no_content() -> web.Response:
    """204, empty body."""
    return web.Response(status=204)
