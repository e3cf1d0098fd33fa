"""EPCIS XML: reading 2.0 and 1.2 documents into JSON-LD, writing query documents."""

from infrastructure.epcis_xml.reader import (
    TooManyEvents,
    XmlDocument,
    XmlDocumentRejected,
    read_xml_document,
)

__all__ = ["TooManyEvents", "XmlDocument", "XmlDocumentRejected", "read_xml_document"]
