"""`/users/register`, `/users/invite` and `/users/me/tfa`: the flows that reach users by
e-mail or one-time passwords."""

from typing import Any

from aiohttp import web

from api.access import pages
from api.platform.keys import caller, service
from api.platform.requests import client_ip, read_json
from api.platform.responses import data_response, no_content
from application.service.errors import InvalidPayload

routes = web.RouteTableDef()


async def _body(request: web.Request) -> dict[str, Any]:
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidPayload("The body must be a JSON object")
    return body


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidPayload(f'"{name}" is required')
    return value


@routes.post("/users/register")
async def register(request: web.Request) -> web.Response:
    """Register oneself (when public registration is on); a verification mail follows."""
    body = await _body(request)
    await service(request).access.user_flows.register(
        _text(body, "email"),
        _text(body, "password"),
        body.get("first_name"),
        body.get("last_name"),
        body.get("verification_url"),
        client_ip(request, service(request).settings.trust_proxy),
    )
    return no_content()


@routes.get("/users/register/verify-email")
async def verify_email(request: web.Request) -> web.Response:
    """Activate a registered user with the token of their verification mail; a browser
    opening an older mail's link is sent to the console's page, API clients get 204."""
    flows = service(request).access.user_flows
    if pages.prefers_html(request):
        raise pages.to_console(request, "verify-email")
    token = request.query.get("token", "")
    if not token:
        raise InvalidPayload('"token" is required')
    await flows.verify_email(token)
    return no_content()


@routes.post("/users/invite")
async def invite(request: web.Request) -> web.Response:
    """Invite users by e-mail with a role (needs create on users)."""
    body = await _body(request)
    await service(request).access.user_flows.invite(
        caller(request), body.get("email"), body.get("role"), body.get("invite_url")
    )
    return no_content()


@routes.post("/users/invite/accept")
async def accept_invite(request: web.Request) -> web.Response:
    """Set the invited user's password and activate them (from the invitation page's form
    too)."""
    flows = service(request).access.user_flows
    if pages.is_form(request):
        return await pages.submit(request, pages.INVITE, flows.accept_invite)
    body = await _body(request)
    await flows.accept_invite(_text(body, "token"), _text(body, "password"))
    return no_content()


@routes.post("/users/me/tfa/generate")
async def generate_tfa(request: web.Request) -> web.Response:
    """A new TOTP secret and its otpauth:// URL (nothing is stored yet); the password is
    asked of users who sign in with one."""
    body = await _body(request)
    password = body.get("password")
    if password is not None and not isinstance(password, str):
        raise InvalidPayload('"password" must be a string')
    secret, url = await service(request).access.user_flows.generate_tfa(
        caller(request), password or None
    )
    return data_response({"secret": secret, "otpauth_url": url})


@routes.post("/users/me/tfa/enable")
async def enable_tfa(request: web.Request) -> web.Response:
    """Turn two-factor authentication on with a secret and a code it produced."""
    body = await _body(request)
    await service(request).access.user_flows.enable_tfa(
        caller(request), _text(body, "secret"), _text(body, "otp")
    )
    return no_content()


@routes.post("/users/me/tfa/disable")
async def disable_tfa(request: web.Request) -> web.Response:
    """Turn two-factor authentication off with a current code."""
    body = await _body(request)
    await service(request).access.user_flows.disable_tfa(caller(request), _text(body, "otp"))
    return no_content()
