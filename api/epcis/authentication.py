"""Who calls the EPCIS API: a static token sent as `Authorization: Bearer`, or nobody."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from api.epcis.errors import InvalidStaticToken
from api.families import EPCIS_PREFIX, is_epcis
from api.keys import ACCOUNTABILITY, EVENT_SCOPE, service
from api.platform_requests import client_ip, with_agent
from application.errors import Forbidden, PlatformError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _action(request: web.Request) -> str:
    """Storing events (and checking documents for it) is `create`; all else is `read`."""
    if request.method == "POST" and request.path in (
        f"{EPCIS_PREFIX}/capture",
        f"{EPCIS_PREFIX}/validate",
        f"{EPCIS_PREFIX}/events",
    ):
        return "create"
    return "read"


@web.middleware
async def epcis_authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Resolve an EPCIS request's caller and the events it may see.

    Static tokens only. Without a token, what the public policy allows is served and the
    rest is 401; a caller with a token who may not is 403.
    """
    if not is_epcis(request):
        return await handler(request)
    tracepoint = service(request)
    ip = client_ip(request, tracepoint.settings.trust_proxy)
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if header and (scheme.lower() != "bearer" or not token.strip()):
        raise InvalidStaticToken("Send Authorization: Bearer <static token>")
    try:
        caller = (
            await tracepoint.access.authenticator.static_caller(token.strip(), ip)
            if header
            else await tracepoint.access.authenticator.caller(None, ip)
        )
    except PlatformError as exc:
        raise InvalidStaticToken("The token is not a valid static token") from exc
    try:
        request[EVENT_SCOPE] = await tracepoint.epcis.scopes.request_scope(caller, _action(request))
    except Forbidden:
        if request.method != "OPTIONS":
            raise
        # Discovery needs no rights: it tells what the API serves, not what is stored.
        request[EVENT_SCOPE] = ()
    request[ACCOUNTABILITY] = with_agent(caller, request)
    return await handler(request)
