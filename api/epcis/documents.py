"""Reading an EPCIS document from a request: media type, size limit, JSON or XML."""

from typing import Any

import orjson
from aiohttp import web

from api.epcis.responses import epcis_exception, invalid_document
from api.platform.keys import service
from domain.epcis.violations import Violation
from domain.epcis.xml_paths import XmlPlaces

JSON_MEDIA_TYPES = ("application/json", "application/ld+json")
XML_MEDIA_TYPES = ("application/xml", "text/xml")

#: Where the parts of an XML capture document were, to name them in violations.
XML_PLACES: web.RequestKey[XmlPlaces] = web.RequestKey("epcis_xml_places")


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
    """The JSON-LD document a capture or validate request sends: its JSON body, or the
    JSON-LD twin of its XML body (whose element paths go to `XML_PLACES`).

    Raises DocumentRejected with a 415, 413 or 400 response for a wrong media type, an
    oversized body, or a body that is not JSON; InvalidDocument for bad XML.
    """
    if request.content_type not in JSON_MEDIA_TYPES + XML_MEDIA_TYPES:
        raise DocumentRejected(
            epcis_exception(
                415,
                "UnsupportedMediaTypeException",
                f"Content-Type {request.content_type or '(none)'} is not supported; "
                f"send {', '.join(JSON_MEDIA_TYPES + XML_MEDIA_TYPES)}",
                limits,
            )
        )
    if request.content_length is not None and request.content_length > max_bytes:
        raise DocumentRejected(_too_large(max_bytes, limits))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_chunked(1 << 16):
        size += len(chunk)
        if size > max_bytes:
            # Stop reading at once: a client streaming gigabytes gets its answer early.
            raise DocumentRejected(_too_large(max_bytes, limits))
        chunks.append(chunk)
    body = b"".join(chunks)
    if not body.strip():
        raise DocumentRejected(invalid_document([Violation("(root)", "The request body is empty")]))
    if request.content_type in XML_MEDIA_TYPES:
        epcis = service(request).epcis
        xml = await epcis.xml.read(body, epcis.capture.max_events)
        request[XML_PLACES] = xml.places
        return xml.document
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise DocumentRejected(
            invalid_document([Violation("(root)", f"The body is not valid JSON: {exc}")])
        ) from exc


def _too_large(max_bytes: int, limits: dict[str, str]) -> web.Response:
    return epcis_exception(
        413,
        "CaptureLimitExceededException",
        f"The document is larger than {max_bytes} bytes, the most this repository "
        "accepts in one request",
        limits,
    )


def located(request: web.Request, violations: list[Violation]) -> list[Violation]:
    """The violations as the request's document names its places: element paths for XML."""
    places = request.get(XML_PLACES)
    return violations if places is None else places.relocated(violations)
