"""EPCIS XML at the edge: XML capture documents in as JSON-LD, query documents out as XML.

Everything between (schema validation, event hashes, indexing, storage) sees only the
JSON-LD form, so an XML document's events are stored exactly as their JSON twin's would be.
Parsing and writing run off the event loop: a 50 MB document takes a second or so.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from application.epcis.capture_outcomes import CaptureLimitExceeded, InvalidDocument
from application.service.blocking import BlockingRunner
from domain.epcis.cbv_format import CbvXmlFormat, cbv_values_for_xml
from infrastructure.epcis_xml import (
    TooManyEvents,
    XmlDocument,
    XmlDocumentRejected,
    read_xml_document,
)
from infrastructure.epcis_xml.writer import query_document_from_json, query_document_xml

__all__ = ["XmlDocument", "XmlDocuments"]


class XmlDocuments:
    """Reads EPCIS XML capture documents and writes EPCIS XML query documents."""

    def __init__(self, blocking: BlockingRunner) -> None:
        self._blocking = blocking

    async def read(self, body: bytes, max_events: int) -> XmlDocument:
        """The JSON-LD twin of an XML capture document and where its parts were.

        Raises InvalidDocument (locations are element paths) for a body that is no EPCIS
        XML document or breaks the XML schema's structure, CaptureLimitExceeded for one
        with more than `max_events` events (found before the rest is read).
        """
        return await self._blocking.run(self._read, body, max_events)

    def _read(self, body: bytes, max_events: int) -> XmlDocument:
        try:
            document = read_xml_document(body, max_events)
        except XmlDocumentRejected as exc:
            raise InvalidDocument(exc.violations) from exc
        except TooManyEvents as exc:
            raise CaptureLimitExceeded(
                f"The document has more than {exc.limit} events; this repository captures "
                f"at most {exc.limit} events per request"
            ) from exc
        if document.violations:
            raise InvalidDocument(document.violations)
        return document

    async def query_document(
        self,
        events: Sequence[str],
        namespaces: Mapping[str, str],
        created: str,
        query_name: str,
        subscription_id: str | None = None,
        cbv_format: CbvXmlFormat = CbvXmlFormat.NO_PREFERENCE,
    ) -> bytes:
        """An EPCIS 2.0 XML EPCISQueryDocument holding these events (their stored JSON),
        CBV values written as `cbv_format` asks (`GS1-CBV-XML-Format`)."""
        return await self._blocking.run(
            _query_document, events, namespaces, created, query_name, subscription_id, cbv_format
        )

    async def from_json(
        self, document: bytes, cbv_format: CbvXmlFormat = CbvXmlFormat.NO_PREFERENCE
    ) -> bytes:
        """The XML form of a JSON EPCISQueryDocument (a subscription's delivery), CBV
        values written as `cbv_format` asks."""
        return await self._blocking.run(_from_json, document, cbv_format)


def _from_json(document: bytes, cbv_format: CbvXmlFormat) -> bytes:
    parsed = orjson.loads(document)
    results = parsed["epcisBody"]["queryResults"]
    events = results["resultsBody"]["eventList"]
    results["resultsBody"]["eventList"] = _cbv_values(events, cbv_format)
    return query_document_from_json(parsed)


def _cbv_values(
    events: Sequence[str | Mapping[str, Any]], cbv_format: CbvXmlFormat
) -> Sequence[str | Mapping[str, Any]]:
    # The writer keeps a captured URI and writes a bare word as its CBV URN, which is what
    # the other two formats ask; only these two rewrite values first.
    if cbv_format not in (CbvXmlFormat.URN, CbvXmlFormat.WEB_URI):
        return events
    return [
        cbv_values_for_xml(orjson.loads(e) if isinstance(e, str) else e, cbv_format) for e in events
    ]


def _query_document(
    events: Sequence[str],
    namespaces: Mapping[str, str],
    created: str,
    query_name: str,
    subscription_id: str | None,
    cbv_format: CbvXmlFormat,
) -> bytes:
    written = _cbv_values(events, cbv_format)
    return query_document_xml(written, namespaces, created, query_name, subscription_id)
