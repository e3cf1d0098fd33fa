"""EPCIS XML answers: whether a request asks for XML, and its query documents in XML."""

from datetime import UTC, datetime

from aiohttp import web

from api.epcis.documents import JSON_MEDIA_TYPES, XML_MEDIA_TYPES
from api.keys import service
from application.epcis.event_queries import EventPage

#: Accept values that take the default (JSON-LD) answer.
_ANY = ("*/*", "application/*")


def wants_xml(request: web.Request) -> bool:
    """Whether the request's `Accept` prefers EPCIS XML to JSON(-LD): the media type of
    highest quality among those we can answer wins, the earliest on a tie; none is JSON."""
    best: tuple[float, bool] | None = None
    for part in request.headers.get("Accept", "").split(","):
        media, *parameters = (piece.strip().lower() for piece in part.split(";"))
        if media in XML_MEDIA_TYPES:
            xml = True
        elif media in JSON_MEDIA_TYPES or media in _ANY:
            xml = False
        else:
            continue
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0 and (best is None or quality > best[0]):
            best = (quality, xml)
    return best is not None and best[1]


async def xml_query_document(request: web.Request, page: EventPage, query_name: str) -> bytes:
    """The page as an EPCIS 2.0 XML EPCISQueryDocument."""
    created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return await service(request).epcis.xml.query_document(
        page.events, page.namespaces or {}, created, query_name
    )
