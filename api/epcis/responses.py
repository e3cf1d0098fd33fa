"""EPCIS 2.0 response formats: exception JSON, the invalid-document text, common headers."""

from collections.abc import Iterable

import orjson
from aiohttp import web

from domain.epcis.violations import Violation

EPCIS_VERSION_HEADERS = {"GS1-EPCIS-Version": "2.0.0", "GS1-CBV-Version": "2.0.0"}

_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    500: "Internal error",
}


def epcis_exception(
    status: int,
    exception: str,
    detail: str,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """An EPCIS exception (RFC 7807 problem JSON) with type `epcisException:<exception>`."""
    body = {
        "type": f"epcisException:{exception}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    return web.Response(
        status=status,
        body=orjson.dumps(body),
        content_type="application/problem+json",
        headers={**EPCIS_VERSION_HEADERS, **(headers or {})},
    )


def invalid_document(violations: Iterable[Violation]) -> web.Response:
    """400 `text/plain`: `EPCIS Document is invalid;` then one `location: reason` per line."""
    entries = ";\n".join(str(v) for v in violations)
    return web.Response(
        status=400,
        text="EPCIS Document is invalid;\n" + entries,
        content_type="text/plain",
        headers=EPCIS_VERSION_HEADERS,
    )


def json_response(
    body: object, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """A JSON response with the EPCIS version headers."""
    return web.Response(
        status=status,
        body=orjson.dumps(body),
        content_type="application/json",
        headers={**EPCIS_VERSION_HEADERS, **(headers or {})},
    )
