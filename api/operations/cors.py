"""Cross-origin requests from browsers, allowed by a list in Directus's manner (CORS_*)."""

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from api.platform.keys import TRACEPOINT

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _items(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())


def _pattern(text: str) -> re.Pattern[str]:
    try:
        return re.compile(text)
    except re.error as exc:
        raise ValueError(f"CORS_ORIGIN: {text!r} is not a regular expression ({exc})") from exc


@dataclass(frozen=True)
class CorsPolicy:
    """Which origins may call, and what the answers tell their browsers."""

    enabled: bool = False
    #: True: any origin, reflected; "*": any origin, answered `*`; else the list below.
    any_origin: bool | str = False
    origins: frozenset[str] = frozenset()
    patterns: tuple[re.Pattern[str], ...] = ()
    methods: str = "GET,POST,PATCH,DELETE"
    allowed_headers: str = "Content-Type,Authorization"
    exposed_headers: str = "Content-Range"
    credentials: bool = True
    max_age: int = 18_000

    @classmethod
    def parse(
        cls,
        *,
        enabled: bool,
        origin: str,
        methods: str,
        allowed_headers: str,
        exposed_headers: str,
        credentials: bool,
        max_age: int,
    ) -> "CorsPolicy":
        """The policy the CORS_* settings describe (CORS_ORIGIN as Directus reads it)."""
        value = origin.strip()
        value = value.removeprefix("array:")
        any_origin: bool | str = False
        origins: set[str] = set()
        patterns: list[re.Pattern[str]] = []
        if value.lower() == "true":
            any_origin = True
        elif value == "*":
            any_origin = "*"
        elif value.lower() not in {"", "false"}:
            for item in _items(value):
                if item.startswith("regex:"):
                    patterns.append(_pattern(item.removeprefix("regex:")))
                else:
                    origins.add(item.rstrip("/"))
        return cls(
            enabled,
            any_origin,
            frozenset(origins),
            tuple(patterns),
            ",".join(_items(methods)),
            ",".join(_items(allowed_headers)),
            ",".join(_items(exposed_headers)),
            credentials,
            max_age,
        )

    def allow_origin(self, origin: str | None) -> str | None:
        """The Access-Control-Allow-Origin answer to this Origin, None when it may not call."""
        if not self.enabled or not origin:
            return None
        if self.any_origin == "*":
            return "*"
        if self.any_origin is True or origin in self.origins:
            return origin
        # As Directus (a JavaScript RegExp's test): the pattern is searched, so anchor it.
        if any(pattern.search(origin) for pattern in self.patterns):
            return origin
        return None

    def trusts(self, origin: str) -> bool:
        """Whether pages of `origin` are named to call with the user's cookies: listed
        (or matched by a pattern) with credentials on; never by `*` or `true`, which let
        any site call."""
        return self.credentials and self.any_origin is False and self.allow_origin(origin) == origin

    def headers(self, origin: str, preflight: bool) -> dict[str, str]:
        """The CORS headers of an answer to an allowed origin."""
        headers = {"Access-Control-Allow-Origin": origin}
        if origin != "*":
            headers["Vary"] = "Origin"
        if self.credentials:
            headers["Access-Control-Allow-Credentials"] = "true"
        if preflight:
            headers["Access-Control-Allow-Methods"] = self.methods
            if self.allowed_headers:
                headers["Access-Control-Allow-Headers"] = self.allowed_headers
            headers["Access-Control-Max-Age"] = str(self.max_age)
        elif self.exposed_headers:
            headers["Access-Control-Expose-Headers"] = self.exposed_headers
        return headers


CORS_POLICY = web.AppKey("cors_policy", CorsPolicy)


def _is_preflight(request: web.Request) -> bool:
    return request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers


@web.middleware
async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Answer an allowed origin's preflight before authentication (a browser sends none);
    any other request, and a refused origin's preflight, goes on as without CORS."""
    if _is_preflight(request):
        policy = request.app[CORS_POLICY]
        origin = policy.allow_origin(request.headers.get("Origin"))
        if origin is not None:
            return web.Response(status=204, headers=policy.headers(origin, preflight=True))
    return await handler(request)


async def add_cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """The CORS headers of an actual answer (errors and streamed files too)."""
    if _is_preflight(request):
        return
    policy = request.app[CORS_POLICY]
    origin = policy.allow_origin(request.headers.get("Origin"))
    if origin is None:
        return
    for name, value in policy.headers(origin, preflight=False).items():
        if name == "Vary":
            vary = response.headers.get("Vary")
            response.headers["Vary"] = f"{vary}, Origin" if vary else "Origin"
        else:
            response.headers[name] = value


def install_cors(app: web.Application) -> None:
    """Read the CORS_* settings once, and add the headers to every prepared answer."""
    settings = app[TRACEPOINT].settings
    app[CORS_POLICY] = CorsPolicy.parse(
        enabled=settings.cors_enabled,
        origin=settings.cors_origin,
        methods=settings.cors_methods,
        allowed_headers=settings.cors_allowed_headers,
        exposed_headers=settings.cors_exposed_headers,
        credentials=settings.cors_credentials,
        max_age=settings.cors_max_age,
    )
    app.on_response_prepare.append(add_cors_headers)
