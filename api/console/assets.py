"""`/console/…`: the console's files, and its page for every other path under it (the
page's script routes by the path, so links such as a mail's reset link open it)."""

from pathlib import Path

from aiohttp import web

routes = web.RouteTableDef()

STATIC = Path(__file__).parent / "static"
PREFIX = "/console"
#: The console's own scripts, styles and calls to this service only; no inline script or
#: style, no framing, forms post nowhere else.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: Files are not fingerprinted: a browser asks again each time (a 304 while unchanged), so
#: an upgraded service never runs with yesterday's scripts.
REVALIDATE = "no-cache"
_TYPES = {
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".html": "text/html",
    ".txt": "text/plain",
}


def _asset(path: str) -> Path | None:
    """The shipped file a path names, if any (never a file outside the folder)."""
    if not path or path.endswith("/") or "\x00" in path:
        return None
    candidate = (STATIC / path).resolve()
    if not candidate.is_relative_to(STATIC.resolve()) or not candidate.is_file():
        return None
    return candidate if candidate.suffix in _TYPES else None


@routes.get(PREFIX)
async def console_root(request: web.Request) -> web.StreamResponse:
    """The console lives under `/console/`: its pages use addresses relative to it."""
    raise web.HTTPMovedPermanently(f"{PREFIX}/")


@routes.get(PREFIX + "/{path:.*}")
async def console(request: web.Request) -> web.StreamResponse:
    """A file of the console, or its page (whose script shows what the path names)."""
    path = request.match_info["path"]
    asset = _asset(path)
    if asset is None:
        # Pages may hold dots (`items/urn:epc:id:sgtin:4012345.011111.1`); files are
        # scripts or top-level files with a suffix.
        if path.startswith("js/") or ("/" not in path and Path(path).suffix in _TYPES):
            raise web.HTTPNotFound(text="No such file of the console")
        # A page's address may hold a mailed one-time token: neither kept nor passed on.
        response = web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})
    else:
        response = web.FileResponse(asset, headers={"Cache-Control": REVALIDATE})
        response.content_type = _TYPES[asset.suffix]
    response.headers["Content-Security-Policy"] = POLICY
    return response
