"""The access log: one record per request, with its route, timing and caller, no secret."""

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from api.logs.context import request_id
from api.logs.masking import mask_target
from api.platform.keys import ACCOUNTABILITY


class AccessLogger(AbstractAccessLogger):
    """Logs each answered request; the query's secret parameters are masked, and the
    headers that carry credentials (Authorization, Cookie, Referer) are never logged."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        """One INFO record: a readable message, and the same facts as fields for JSON."""
        target = mask_target(request.raw_path)
        duration_ms = round(time * 1000, 1)
        accountability = request.get(ACCOUNTABILITY)
        user = accountability.user if accountability is not None else None
        fields = {
            "request_id": request_id(request),
            "method": request.method,
            "route": _route(request),
            "path": target,
            "status": response.status,
            "duration_ms": duration_ms,
            "user_id": user,
            "remote": request.remote,
            "size": response.body_length,
            "user_agent": request.headers.get("User-Agent"),
        }
        self.logger.info(
            '%s "%s %s HTTP/%d.%d" %d %d %.1fms id=%s user=%s',
            request.remote,
            request.method,
            target,
            request.version.major,
            request.version.minor,
            response.status,
            response.body_length,
            duration_ms,
            fields["request_id"],
            user or "-",
            extra={"fields": fields},
        )


def _route(request: web.BaseRequest) -> str | None:
    """The pattern of the route that answered (`/items/{collection}/{key}`), if any."""
    match_info = getattr(request, "match_info", None)
    route = getattr(match_info, "route", None)
    resource = getattr(route, "resource", None)
    return resource.canonical if resource is not None else None
