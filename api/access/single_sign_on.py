"""`/auth` providers and `/auth/login/<provider>`: single sign-on with OpenID Connect, as
Directus's `openid` driver answers (spec §4.5)."""

from typing import Any

from aiohttp import web

from api.access.auth import set_cookie, set_sign_in_cookie, signed_in_response
from api.platform.keys import service
from api.platform.requests import client_ip
from application.access.single_sign_on import FLOW_LIFETIME, failure_location

routes = web.RouteTableDef()


def _flow_cookie(provider: str) -> str:
    """The cookie that ties a flow to its browser (Directus names it alike)."""
    return f"openid.{provider}"


def _flow_path(provider: str) -> str:
    """The flow cookie goes to this provider's sign-in routes only."""
    return f"/auth/login/{provider}"


def _redirect(location: str) -> web.Response:
    """A 302 to `location` (a response, not an exception, so cookies can ride on it)."""
    return web.Response(status=302, headers={"Location": location})


@routes.get("/auth")
async def providers(request: web.Request) -> web.Response:
    """The sign-in providers, and whether e-mail and password sign-in is switched off."""
    sso = service(request).access.single_sign_on
    data: list[dict[str, Any]] = []
    for listed in sso.listing():
        entry: dict[str, Any] = {"name": listed.name, "driver": listed.driver}
        if listed.label:
            entry["label"] = listed.label
        if listed.icon:
            entry["icon"] = listed.icon
        data.append(entry)
    return web.json_response({"data": data, "disableDefault": sso.providers.disable_default})


@routes.get("/auth/login/{provider}")
async def start(request: web.Request) -> web.StreamResponse:
    """Send the browser to the provider; `?redirect=` is where it comes back to after the
    sign-in, `?mode=` how the tokens are handed over, `?otp=` a user's one-time password."""
    name = request.match_info["provider"]
    sso = service(request).access.single_sign_on
    query = request.query
    started = await sso.start(name, query.get("redirect"), query.get("mode"), query.get("otp"))
    response = _redirect(started.url)
    set_cookie(
        request, response, _flow_cookie(name), started.browser, FLOW_LIFETIME, _flow_path(name)
    )
    return response


@routes.post("/auth/login/{provider}/callback")
async def callback_posted(request: web.Request) -> web.StreamResponse:
    """A provider answering with `response_mode=form_post`: on to the GET callback, as
    Directus does."""
    form = await request.post()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    raise web.HTTPSeeOther(request.rel_url.with_query(fields).path_qs)


@routes.get("/auth/login/{provider}/callback")
async def callback(request: web.Request) -> web.StreamResponse:
    """Finish the sign-in: answer it in the flow's mode, or send the browser to the flow's
    redirect, with the cookie of its mode (or `?reason=<code>` when it failed)."""
    name = request.match_info["provider"]
    tracepoint = service(request)
    finished = await tracepoint.access.single_sign_on.finish(
        name,
        dict(request.query),
        request.cookies.get(_flow_cookie(name)),
        client_ip(request, tracepoint.settings.trust_proxy),
        request.headers.get("User-Agent"),
    )
    if finished.redirect is None:
        if finished.error is not None:
            raise finished.error
        assert finished.sign_in is not None
        response: web.StreamResponse = signed_in_response(request, finished.sign_in)
    elif finished.error is not None:
        response = _redirect(failure_location(finished.redirect, finished.error.code))
    else:
        assert finished.sign_in is not None
        response = _redirect(finished.redirect)
        set_sign_in_cookie(request, response, finished.sign_in)
    response.del_cookie(_flow_cookie(name), path=_flow_path(name))
    return response
