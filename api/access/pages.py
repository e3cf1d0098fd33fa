"""The links of password-reset, invitation and registration mails before the console
served them (`/admin/…`, `/users/register/verify-email` opened in a browser): they now
lead to the console's pages. A form posted to the API's own endpoints, by a page saved
from then or a browser without scripts, is still answered with a small page.
"""

from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from html import escape

from aiohttp import web

from api.platform.responses import STATUS
from application.service.errors import Forbidden, InvalidPayload, PlatformError

routes = web.RouteTableDef()

_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
#: No script, no outside resource, no framing; forms post to this service only.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}"
    "label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;"
    "box-sizing:border-box}button{margin-top:1.5rem;padding:.5rem 1rem}.error{color:#a00}"
)


@dataclass(frozen=True)
class PasswordForm:
    """A page that sets a password with a mailed token, and the endpoint it posts to."""

    page: str
    action: str
    title: str
    intro: str
    done: str
    expired: str


RESET = PasswordForm(
    page="/admin/reset-password",
    action="/auth/password/reset",
    title="Choose a new password",
    intro="Choose the new password of your Tracepoint account.",
    done="Your password is changed. Sign in with the new one.",
    expired="This link has expired or was used already. Ask for a new one.",
)
INVITE = PasswordForm(
    page="/admin/accept-invite",
    action="/users/invite/accept",
    title="Accept the invitation",
    intro="Choose a password to activate your Tracepoint account.",
    done="Your account is active. Sign in with your e-mail address and this password.",
    expired="This invitation has expired or was accepted already. Ask for a new one.",
)


def prefers_html(request: web.Request) -> bool:
    """Whether `Accept` rates `text/html` above JSON, as a browser opening a link does."""
    ranges: dict[str, float] = {}
    for part in request.headers.get("Accept", "").split(","):
        media, *parameters = (piece.strip().lower() for piece in part.split(";"))
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip() == "q":
                # An unreadable weight counts as the default.
                with suppress(ValueError):
                    quality = float(value)
        if media:
            ranges[media] = max(quality, ranges.get(media, 0.0))
    html = ranges.get("text/html", ranges.get("text/*", 0.0))
    json = ranges.get("application/json", ranges.get("application/*", ranges.get("*/*", 0.0)))
    return html > json


def is_form(request: web.Request) -> bool:
    """Whether a POST comes from an HTML form rather than an API client."""
    return request.content_type in _FORMS


async def submit(
    request: web.Request, form: PasswordForm, action: Callable[[str, str], Awaitable[None]]
) -> web.Response:
    """Run a form's post through `action(token, password)` and answer with a page."""
    fields = await request.post()
    token, password = str(fields.get("token", "")), str(fields.get("password", ""))
    confirm = fields.get("password_confirm")
    try:
        if not token:
            raise Forbidden()
        if not password:
            raise InvalidPayload("Enter a password.")
        if confirm is not None and str(confirm) != password:
            raise InvalidPayload("The two passwords differ.")
        await action(token, password)
    except Forbidden:
        return _page(form.title, f"<p>{escape(form.expired)}</p>", 403)
    except PlatformError as exc:
        return _form(request, form, token, exc.message, STATUS.get(exc.code, 400))
    return _page(form.title, f"<p>{escape(form.done)}</p>")


def _relative(here: str, target: str) -> str:
    # Relative, so that the form still posts to this service behind a proxy's path prefix.
    return "../" * (here.count("/") - 1) + target.lstrip("/")


def _page(title: str, body: str, status: int = 200) -> web.Response:
    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)} - Tracepoint</title><style>{_STYLE}</style></head>"
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )
    response = web.Response(status=status, text=html, content_type="text/html")
    # The page's address holds a one-time token: neither kept nor passed on.
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Content-Security-Policy"] = _CSP
    return response


def _form(
    request: web.Request, form: PasswordForm, token: str, error: str = "", status: int = 200
) -> web.Response:
    if not token:
        return _page(form.title, "<p>This link carries no token. Open the whole link.</p>", 400)
    message = f'<p class="error" role="alert">{escape(error)}</p>' if error else ""
    action = _relative(request.path, form.action)
    return _page(
        form.title,
        f"<p>{escape(form.intro)}</p>{message}"
        f'<form method="post" action="{escape(action)}">'
        f'<input type="hidden" name="token" value="{escape(token)}">'
        '<label for="password">New password</label>'
        '<input id="password" name="password" type="password" required '
        'autocomplete="new-password" autofocus>'
        '<label for="password_confirm">The same password again</label>'
        '<input id="password_confirm" name="password_confirm" type="password" required '
        'autocomplete="new-password">'
        f'<button type="submit">{escape(form.title)}</button></form>',
        status,
    )


def to_console(request: web.Request, page: str) -> web.HTTPFound:
    """A redirect from an older mail link to the console's page, with the link's query."""
    target = _relative(request.path, f"/console/{page}")
    query = request.query_string
    response = web.HTTPFound(f"{target}?{query}" if query else target)
    # The address holds a one-time token: neither kept nor passed on.
    response.headers["Cache-Control"] = "no-store"
    return response


@routes.get(RESET.page)
async def reset_page(request: web.Request) -> web.Response:
    """The password-reset mail's link of older mails: the console's reset page."""
    raise to_console(request, "reset-password")


@routes.get(INVITE.page)
async def invite_page(request: web.Request) -> web.Response:
    """The invitation mail's link of older mails: the console's invitation page."""
    raise to_console(request, "accept-invite")
