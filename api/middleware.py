"""Authentication and error handling around every request."""

import dataclasses
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from api.epcis.responses import epcis_exception
from api.keys import ACCOUNTABILITY, EVENT_SCOPE, service
from api.platform_requests import client_ip, extract_token
from api.platform_responses import error_response, platform_error
from application.access.event_scope import event_scope
from application.errors import Forbidden, PlatformError
from domain.access.policies import Accountability

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
EPCIS_PREFIX = "/v2/epcis"
#: What a user under a policy that enforces two-factor authentication may reach before
#: enabling it: their own record, the setup endpoints and the flags that say so.
_TFA_SETUP = ("/users/me", "/policies/me/globals")


def _is_epcis(request: web.Request) -> bool:
    return request.path == EPCIS_PREFIX or request.path.startswith(EPCIS_PREFIX + "/")


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
    except PlatformError as exc:
        return error_response(exc)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if _is_epcis(request):
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
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        if _is_epcis(request):
            return epcis_exception(500, "ImplementationException", "An internal error occurred")
        return platform_error(500, "INTERNAL_SERVER_ERROR", "An unexpected error occurred.")


def _epcis_action(request: web.Request) -> str:
    """Storing events (and checking documents for it) is `create`; all else is `read`."""
    if request.method == "POST" and request.path in (
        f"{EPCIS_PREFIX}/capture",
        f"{EPCIS_PREFIX}/validate",
    ):
        return "create"
    return "read"


@web.middleware
async def authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Resolve every request's caller.

    The EPCIS API takes static tokens only, as `Authorization: Bearer`; the platform API
    takes any token from the header, the `access_token` parameter or the session cookie.
    Without a token both serve what the public policy allows: the platform API answers
    403 for the rest, the EPCIS API 401.
    """
    tracepoint = service(request)
    ip = client_ip(request, tracepoint.settings.trust_proxy)
    if _is_epcis(request):
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        challenge = {"WWW-Authenticate": 'Bearer realm="tracepoint"'}
        if header and (scheme.lower() != "bearer" or not token.strip()):
            return epcis_exception(
                401, "SecurityException", "Send Authorization: Bearer <static token>", challenge
            )
        try:
            caller = (
                await tracepoint.authenticator.static_caller(token.strip(), ip)
                if header
                else await tracepoint.authenticator.caller(None, ip)
            )
        except PlatformError:
            return epcis_exception(
                401, "SecurityException", "The token is not a valid static token", challenge
            )
        try:
            request[EVENT_SCOPE] = event_scope(caller, _epcis_action(request))
        except Forbidden as exc:
            if caller.user is None:
                # What the public policy does not allow needs a token.
                return epcis_exception(
                    401,
                    "SecurityException",
                    "Authentication required: send Authorization: Bearer <static token>",
                    challenge,
                )
            return epcis_exception(403, "SecurityException", exc.message)
        request[ACCOUNTABILITY] = _with_agent(caller, request)
        return await handler(request)
    if request.path == "/auth" or request.path.startswith(("/server/", "/auth/")):
        # The server's probes and signing in need no caller; a stale access token sent
        # along must not stop a client from refreshing it.
        return await handler(request)
    caller = await tracepoint.authenticator.caller(extract_token(request), ip)
    if caller.must_enable_tfa and not request.path.startswith(_TFA_SETUP):
        raise Forbidden("Two-factor authentication must be enabled first: see /users/me/tfa.")
    request[ACCOUNTABILITY] = _with_agent(caller, request)
    return await handler(request)


def _with_agent(caller: Accountability, request: web.Request) -> Accountability:
    agent = request.headers.get("User-Agent")
    return dataclasses.replace(caller, user_agent=agent) if agent else caller
