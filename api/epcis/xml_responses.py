"""EPCIS XML answers: whether a request asks for XML, and its query documents in XML."""

from datetime import UTC, datetime

from aiohttp import web

from api.epcis.documents import XML_MEDIA_TYPES
from api.epcis.negotiation import negotiated
from api.platform.keys import service
from application.epcis.event_queries import EventPage


def wants_xml(request: web.Request) -> bool:
    """Whether the answer is to be EPCIS XML: the media type content negotiation chose
    (`api/epcis/negotiation.py`) among those of the route."""
    return negotiated(request).media_type in XML_MEDIA_TYPES


async def xml_query_document(request: web.Request, page: EventPage, query_name: str) -> bytes:
    """The page as an EPCIS 2.0 XML EPCISQueryDocument, its CBV values written as
    `GS1-CBV-XML-Format` asks."""
    created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return await service(request).epcis.xml.query_document(
        page.events,
        page.namespaces or {},
        created,
        query_name,
        cbv_format=negotiated(request).cbv_xml_format,
    )
