"""Reading an EPCIS document from a request: media type, size limit, JSON."""

from typing import Any

import orjson
from aiohttp import web

from api.epcis.responses import epcis_exception, invalid_document
from domain.epcis.violations import Violation

JSON_MEDIA_TYPES = ("application/json", "application/ld+json")


class DocumentRejected(Exception):
    """The request cannot be read as an EPCIS document; `response` says why."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


def limit_headers(max_events: int, max_bytes: int) -> dict[str, str]:
    """The capture limits, advertised on every capture response."""
    return {
        "GS1-EPCIS-Capture-Limit": str(max_events),
        "GS1-EPCIS-Capture-File-Size-Limit": str(max_bytes),
    }


async def read_document(request: web.Request, max_bytes: int, limits: dict[str, str]) -> Any:
    """The parsed JSON body of a capture or validate request.

    Raises DocumentRejected with a 415, 413 or 400 response for a wrong media type, an
    oversized body, or a body that is not JSON.
    """
    if request.content_type not in JSON_MEDIA_TYPES:
        raise DocumentRejected(
            epcis_exception(
                415,
                "UnsupportedMediaTypeException",
                f"Content-Type {request.content_type or '(none)'} is not supported; "
                f"send {' or '.join(JSON_MEDIA_TYPES)}",
                limits,
            )
        )
    too_large = epcis_exception(
        413,
        "CaptureLimitExceededException",
        f"The document is larger than {max_bytes} bytes, the most this repository "
        "accepts in one request",
        limits,
    )
    if request.content_length is not None and request.content_length > max_bytes:
        raise DocumentRejected(too_large)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > max_bytes:
            # Stop reading at once: a client streaming gigabytes gets its answer early.
            raise DocumentRejected(too_large)
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise DocumentRejected(invalid_document([Violation("(root)", "The request body is empty")]))
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise DocumentRejected(
            invalid_document([Violation("(root)", f"The body is not valid JSON: {exc}")])
        ) from exc
