"""Who calls the platform API: a token from the header, the `access_token` parameter or
the session cookie, or nobody (the public policy)."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from api.families import is_epcis
from api.keys import ACCOUNTABILITY, service
from api.platform_requests import client_ip, extract_token, with_agent
from application.errors import Forbidden

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: What a user under a policy that enforces two-factor authentication may reach before
#: enabling it: their own record, the setup endpoints and the flags that say so.
_TFA_SETUP = ("/users/me", "/policies/me/globals")
#: What `/server/` answers per caller: the OpenAPI document leaves out what they may not read.
_PER_CALLER = "/server/specs/"


@web.middleware
async def platform_authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Resolve a platform request's caller; without a token, what the public policy allows
    is served and the rest is 403."""
    if is_epcis(request):
        return await handler(request)
    probe = request.path.startswith("/server/") and not request.path.startswith(_PER_CALLER)
    if request.path == "/auth" or request.path.startswith("/auth/") or probe:
        # The server's probes and signing in need no caller; a stale access token sent
        # along must not stop a client from refreshing it.
        return await handler(request)
    tracepoint = service(request)
    caller = await tracepoint.access.authenticator.caller(
        extract_token(request), client_ip(request, tracepoint.settings.trust_proxy)
    )
    if caller.must_enable_tfa and not request.path.startswith(_TFA_SETUP):
        raise Forbidden("Two-factor authentication must be enabled first: see /users/me/tfa.")
    request[ACCOUNTABILITY] = with_agent(caller, request)
    return await handler(request)
