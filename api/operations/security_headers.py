"""Security headers on every answer of both API families, errors and files included."""

from aiohttp import web

from api.platform.keys import TRACEPOINT

#: JSON, XML and files are data, never a page: nothing loads, nothing frames them.
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
#: Our own small pages (password reset, invitation) are self-contained: their inline
#: style, forms that post to this service only, no script, no outside asset.
PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
#: A year; without includeSubDomains, which would bind hosts this service does not own.
HSTS = "max-age=31536000"


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Set the headers a handler has not set itself (a page may bring its own policy)."""
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Frame-Options", "DENY")
    is_page = (response.content_type or "").startswith("text/html")
    headers.setdefault("Content-Security-Policy", PAGE_POLICY if is_page else DATA_POLICY)
    if request.app[TRACEPOINT].settings.cookie_secure:
        headers.setdefault("Strict-Transport-Security", HSTS)
