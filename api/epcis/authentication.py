"""Who calls the EPCIS API: a static token sent as `Authorization: Bearer`, the platform
session cookie of a user signed in to the console, or nobody."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from api.epcis.errors import InvalidStaticToken
from api.epcis.subscriptions import wants_websocket
from api.operations.cors import CORS_POLICY
from api.platform.families import EPCIS_PREFIX, is_epcis
from api.platform.keys import ACCOUNTABILITY, EVENT_SCOPE, service
from api.platform.requests import SESSION_COOKIE, client_ip, with_agent
from application.service.errors import Forbidden, PlatformError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: Methods that read only: a page of another site may make a browser send them with the
#: cookie, but it cannot read the answer.
_SAFE = ("GET", "HEAD", "OPTIONS")


def _trusted_origin(request: web.Request, public_url: str) -> bool:
    """Whether a browser says the request comes from a page this service trusts: its own
    address, PUBLIC_URL, or an origin CORS names to call with credentials. Browsers send
    `Origin` with every POST and cannot be made to forge it; a request without one is no
    browser's, and has a token to use instead."""
    origin = request.headers.get("Origin", "")
    own = f"{request.scheme}://{request.host}"
    public = "/".join(public_url.split("/", 3)[:3])
    return bool(origin) and (origin in (own, public) or request.app[CORS_POLICY].trusts(origin))


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

    A static token, or the session cookie of the console (its user's rights and event
    scope; a request that may write must come from a page of this service, or of an
    origin CORS names, so another site cannot make a signed-in browser capture). Without
    either, what the public policy allows is served and the rest is 401; a caller who may
    not is 403.
    """
    if not is_epcis(request):
        return await handler(request)
    tracepoint = service(request)
    ip = client_ip(request, tracepoint.settings.trust_proxy)
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if header and (scheme.lower() != "bearer" or not token.strip()):
        raise InvalidStaticToken("Send Authorization: Bearer <static token>")
    session = None if header else request.cookies.get(SESSION_COOKIE)
    # A WebSocket (a subscription) is opened by a GET but reads on for the page that made it.
    unsafe = request.method not in _SAFE or wants_websocket(request)
    if session and unsafe and not _trusted_origin(request, tracepoint.settings.public_url):
        raise Forbidden("A request with the session cookie must come from this service's pages")
    try:
        caller = (
            await tracepoint.access.authenticator.static_caller(token.strip(), ip)
            if header
            else await tracepoint.access.authenticator.caller(session, ip)
        )
    except PlatformError as exc:
        if session:
            raise InvalidStaticToken("The session has expired or ended: sign in again") from exc
        raise InvalidStaticToken("The token is not a valid static token") from exc
    if session and caller.must_enable_tfa:
        raise Forbidden("Two-factor authentication must be enabled first: see /users/me/tfa.")
    try:
        request[EVENT_SCOPE] = await tracepoint.epcis.scopes.request_scope(caller, _action(request))
    except Forbidden:
        if request.method != "OPTIONS":
            raise
        # Discovery needs no rights: it tells what the API serves, not what is stored.
        request[EVENT_SCOPE] = ()
    request[ACCOUNTABILITY] = with_agent(caller, request)
    return await handler(request)
