"""Who calls the platform API: a token from the header, the `access_token` parameter or
the session cookie, or nobody (the public policy)."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from api.platform.families import is_epcis
from api.platform.keys import ACCOUNTABILITY, service
from api.platform.requests import client_ip, extract_token, with_agent
from application.service.errors import Forbidden

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: What a user under a policy that enforces two-factor authentication may reach before
#: enabling it: their own record, the setup endpoints, the flags that say so and the
#: server's public description.
_TFA_SETUP = ("/users/me", "/policies/me/globals", "/server/info")
#: The server's probes answer whoever asks, whatever token comes along.
_PROBES = ("/server/ping", "/server/health")


@web.middleware
async def platform_authentication(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Resolve a platform request's caller; without a token, what the public policy allows
    is served and the rest is 403."""
    if is_epcis(request):
        return await handler(request)
    if request.path in ("/auth", *_PROBES) or request.path.startswith("/auth/"):
        # Signing in needs no caller; a stale access token sent along must not stop a
        # client from refreshing it.
        return await handler(request)
    if request.path == "/console" or request.path.startswith("/console/"):
        # The console's files are public; its scripts call the API with the session.
        return await handler(request)
    if request.path == "/metrics":
        # Its own guard: a scraper's metrics token is no access token (api/operations/metrics.py).
        return await handler(request)
    tracepoint = service(request)
    caller = await tracepoint.access.authenticator.caller(
        extract_token(request), client_ip(request, tracepoint.settings.trust_proxy)
    )
    if caller.must_enable_tfa and not request.path.startswith(_TFA_SETUP):
        raise Forbidden("Two-factor authentication must be enabled first: see /users/me/tfa.")
    request[ACCOUNTABILITY] = with_agent(caller, request)
    return await handler(request)
