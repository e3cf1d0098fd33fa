"""`/auth`: sign in (json, cookie and session modes), refresh, sign out."""

from typing import Any

from aiohttp import web

from api.access import pages
from api.platform.keys import service
from api.platform.requests import REFRESH_COOKIE, SESSION_COOKIE, client_ip, read_json
from api.platform.responses import data_response, no_content
from application.access.authentication import MODES, Mode, SignIn
from application.service.errors import InvalidPayload

routes = web.RouteTableDef()


def _mode(body: dict[str, Any], default: Mode) -> Mode:
    given = body.get("mode", default)
    for mode in MODES:
        if given == mode:
            return mode
    raise InvalidPayload('"mode" must be one of json, cookie, session')


def _string(body: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidPayload(
            f'"{name}" is required' if value is None else f'"{name}" must be a string'
        )
    return value


async def _object(request: web.Request) -> dict[str, Any]:
    raw = await request.read()
    if not raw.strip():
        return {}
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidPayload("The body must be a JSON object")
    return body


def signed_in_response(request: web.Request, sign_in: SignIn) -> web.Response:
    """The body and cookies of a login or refresh, as the mode wants them."""
    data: dict[str, Any] = {"expires": sign_in.expires}
    if sign_in.mode != "session":
        data["access_token"] = sign_in.access_token
    if sign_in.mode == "json":
        data["refresh_token"] = sign_in.refresh_token
    response = data_response(data)
    set_sign_in_cookie(request, response, sign_in)
    return response


def set_sign_in_cookie(request: web.Request, response: web.StreamResponse, sign_in: SignIn) -> None:
    """The cookie of a cookie-mode (refresh token) or session-mode (session token) sign-in."""
    settings = service(request).settings
    if sign_in.mode == "session":
        set_cookie(
            request, response, SESSION_COOKIE, sign_in.access_token, settings.session_cookie_ttl
        )
    elif sign_in.mode == "cookie":
        set_cookie(
            request,
            response,
            REFRESH_COOKIE,
            sign_in.refresh_token or "",
            settings.refresh_token_ttl,
        )


def set_cookie(
    request: web.Request,
    response: web.StreamResponse,
    name: str,
    value: str,
    seconds: float,
    path: str = "/",
) -> None:
    """An httpOnly cookie that lives as long as its token, for the whole site unless
    `path` names a part of it."""
    response.set_cookie(
        name,
        value,
        max_age=int(seconds),
        httponly=True,
        samesite="Lax",
        secure=service(request).settings.cookie_secure,
        path=path,
    )


def _token_for(request: web.Request, body: dict[str, Any]) -> tuple[Mode, str | None]:
    """The mode of a refresh or logout and the token it acts on (Directus's rules: the
    body's mode; else json with a body token; else the refresh cookie)."""
    mode = _mode(body, "json" if body.get("refresh_token") else "cookie")
    if mode == "json":
        return mode, _string(body, "refresh_token", required=False)
    if mode == "session":
        return mode, request.cookies.get(SESSION_COOKIE)
    return mode, _string(body, "refresh_token", required=False) or request.cookies.get(
        REFRESH_COOKIE
    )


@routes.post("/auth/login")
async def login(request: web.Request) -> web.Response:
    """Sign in with e-mail and password (and a one-time password when TFA is on); with
    AUTH_DISABLE_DEFAULT there is no such route, as in Directus."""
    if service(request).access.single_sign_on.providers.disable_default:
        raise web.HTTPNotFound()
    body = await _object(request)
    email, password = _string(body, "email"), _string(body, "password")
    tracepoint = service(request)
    sign_in = await tracepoint.access.authenticator.login(
        str(email),
        str(password),
        _string(body, "otp", required=False),
        _mode(body, "json"),
        client_ip(request, tracepoint.settings.trust_proxy),
        request.headers.get("User-Agent"),
    )
    return signed_in_response(request, sign_in)


@routes.post("/auth/refresh")
async def refresh(request: web.Request) -> web.Response:
    """New tokens for a refresh token (body or cookie) or a session cookie."""
    mode, token = _token_for(request, await _object(request))
    return signed_in_response(
        request, await service(request).access.authenticator.refresh(token, mode)
    )


@routes.post("/auth/logout")
async def logout(request: web.Request) -> web.Response:
    """End the session; the cookies that were sent are cleared."""
    mode, token = _token_for(request, await _object(request))
    await service(request).access.authenticator.logout(token, mode)
    response = no_content()
    for name in (SESSION_COOKIE, REFRESH_COOKIE):
        if name in request.cookies:
            response.del_cookie(name, path="/")
    return response


@routes.post("/auth/password/request")
async def request_password_reset(request: web.Request) -> web.Response:
    """Mail a password-reset link; 204 whether or not the address has an account."""
    body = await _object(request)
    tracepoint = service(request)
    await tracepoint.access.user_flows.request_password_reset(
        str(_string(body, "email")),
        body.get("reset_url"),
        client_ip(request, tracepoint.settings.trust_proxy),
    )
    return no_content()


@routes.post("/auth/password/reset")
async def reset_password(request: web.Request) -> web.Response:
    """Set a new password with the token of a reset link (from the reset page's form too)."""
    flows = service(request).access.user_flows
    if pages.is_form(request):
        return await pages.submit(request, pages.RESET, flows.reset_password)
    body = await _object(request)
    await flows.reset_password(str(_string(body, "token")), str(_string(body, "password")))
    return no_content()
