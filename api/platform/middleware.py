"""Error handling around every request, in the format of the request's API family."""

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from api.epcis.errors import epcis_error
from api.epcis.negotiation import prefers_problem_xml
from api.epcis.responses import ProblemResponse, epcis_exception
from api.platform.families import is_epcis
from api.platform.responses import error_response, platform_error
from application.service.errors import PlatformError, as_unavailable

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: Requests that change nothing, so running them again cannot do anything twice.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn routing failures and unexpected errors into each API family's error format;
    an EPCIS exception names the request it answers, in XML for a caller preferring XML."""
    response = await _answer(request, handler)
    if isinstance(response, ProblemResponse) and is_epcis(request):
        return response.with_instance(request.rel_url.raw_path, prefers_problem_xml(request))
    return response


async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
    if "\x00" in request.path:
        # No identifier contains NUL, and PostgreSQL refuses to compare with one.
        if is_epcis(request):
            return epcis_exception(404, "NoSuchResourceException", "No such resource")
        return platform_error(404, "ROUTE_NOT_FOUND", "No such resource")
    try:
        return await _handled(request, handler)
    except (web.RequestPayloadError, HttpProcessingError) as exc:
        # The body could not be read as sent (e.g. a corrupt gzip or deflate stream).
        cause = exc.__cause__ if isinstance(exc.__cause__, HttpProcessingError) else exc
        if isinstance(cause, HttpProcessingError):
            code, reason = cause.code, cause.message.strip()
        else:
            code, reason = 400, str(cause)
        status = code if 400 <= code < 500 else 400
        message = f"The request body cannot be read: {reason or type(cause).__name__}"
        refusal = (
            epcis_exception(status, "ValidationException", message)
            if is_epcis(request)
            else platform_error(status, "INVALID_PAYLOAD", message)
        )
        # The rest of the body cannot be read either: the connection ends with the answer.
        refusal.force_close()
        return refusal
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if is_epcis(request):
            exception = {404: "NoSuchResourceException"}.get(exc.status, "ValidationException")
            message = exc.reason if exc.status != 404 else f"No resource at {request.path}"
            return epcis_exception(exc.status, exception, message)
        if exc.status == 404:
            return platform_error(
                404,
                "ROUTE_NOT_FOUND",
                f"Route {request.path} doesn't exist.",
                {"path": request.path},
            )
        if exc.status == 405:
            return platform_error(405, "METHOD_NOT_ALLOWED", f"{request.method} is not allowed.")
        return platform_error(exc.status, "INVALID_PAYLOAD", exc.reason)
    except Exception as caught:
        # However a lost database showed itself, it is answered as one: 503, not 500.
        failure: Exception = as_unavailable(caught) or caught
        answer = epcis_error(request, failure) if is_epcis(request) else None
        if answer is not None:
            return answer
        if isinstance(failure, PlatformError):
            # On either family: a platform failure the EPCIS table does not name (a 503
            # when writes keep colliding) keeps its own status and Directus answer.
            return error_response(failure)
        log.exception("unhandled error on %s %s", request.method, request.path)
        if is_epcis(request):
            return epcis_exception(500, "ImplementationException", "An internal error occurred")
        return platform_error(500, "INTERNAL_SERVER_ERROR", "An unexpected error occurred.")


async def _handled(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The handler's answer; a request that changes nothing is run once more when a
    connection broke under it (the server restarted): the retry gets a fresh one.

    Captures are not run again here: one whose connection broke at its commit may be
    stored or not, and only the client's resend (idempotent by event ID) settles that.
    """
    try:
        return await handler(request)
    except Exception as exc:
        unavailable = as_unavailable(exc)
        if (
            unavailable is None
            or not unavailable.fresh_connection_may_help
            or request.method not in _SAFE_METHODS
        ):
            raise
    return await handler(request)
