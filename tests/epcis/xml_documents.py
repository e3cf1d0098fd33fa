"""Helpers for the XML tests: the corpus, canonical forms of events, XML documents."""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lxml import etree

from domain.epcis.curies import event_namespaces
from domain.epcis.event_hash import (
    STANDARD_PREFIXES,
    document_context,
    document_ignore_fields,
    prehash,
)
from domain.epcis.event_identity import declaration_key, hash_mismatch
from infrastructure.epcis_xml import read_xml_document
from tests.conftest import FIXTURES

XML_CORPUS = FIXTURES / "openepcis" / "XML"
JSON_CORPUS = FIXTURES / "openepcis" / "Capture" / "Documents"
HASH_VECTORS = FIXTURES / "event-hash"


def canonical(event: Mapping[str, Any], namespaces: Mapping[str, str]) -> tuple[str, ...]:
    """What makes an event the event it is, whatever its spelling: the CBV pre-hash (every
    field the hash covers, canonicalised), its error declaration, its fields' names."""
    # A twin may spell a term `gs1:Angle` where the other writes `Angle` or the IRI.
    bound = {**STANDARD_PREFIXES, **event_namespaces(event, dict(namespaces))}
    names = sorted(k for k in event if k not in ("@context", "recordTime", "eventID"))
    return (
        prehash(event, bound),
        declaration_key(event, bound) or "",
        ",".join(names),
    )


def with_true_hashes(body: bytes) -> bytes:
    """The XML document with every `ni:///` eventID that is not its event's hash replaced
    by the hash (the corpus copies example ids between documents)."""
    converted = read_xml_document(body).document
    namespaces, ignore = document_context(converted), document_ignore_fields(converted)
    text = body.decode("utf-8")
    at = 0
    for event in converted["epcisBody"]["eventList"]:
        event_id = event.get("eventID")
        if not isinstance(event_id, str):
            continue
        at = text.index(event_id, at)
        actual = hash_mismatch(event_id, event, namespaces, ignore)
        if actual is not None:
            text = text[:at] + actual + text[at + len(event_id) :]
        at += len(actual or event_id)
    return text.encode("utf-8")


def as_capture_document(query_document: bytes) -> bytes:
    """An XML EPCISQueryDocument's events, byte for byte, in an EPCISDocument."""
    root = etree.fromstring(query_document)
    event_list = root.find("EPCISBody/{*}QueryResults/resultsBody/EventList")
    assert event_list is not None, query_document[:500]
    document = etree.Element(
        "{urn:epcglobal:epcis:xsd:2}EPCISDocument",
        {"schemaVersion": "2.0", "creationDate": root.get("creationDate", "")},
        nsmap={"epcis": "urn:epcglobal:epcis:xsd:2", **{p: n for p, n in root.nsmap.items() if p}},
    )
    etree.SubElement(document, "EPCISBody").append(event_list)
    return bytes(etree.tostring(document, xml_declaration=True, encoding="UTF-8"))


def xml_document(*events: str, namespaces: str = "") -> bytes:
    """An EPCIS 2.0 XML capture document around these event elements."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" {namespaces} '
        'schemaVersion="2.0" creationDate="2024-03-01T10:00:00Z">'
        f"<EPCISBody><EventList>{''.join(events)}</EventList></EPCISBody>"
        "</epcis:EPCISDocument>"
    ).encode()


def object_event(
    *, epc: str = "urn:epc:id:sgtin:4012345.011111.1001", action: str = "OBSERVE", extra: str = ""
) -> str:
    """An ObjectEvent element with one EPC, shipping at a read point."""
    return (
        "<ObjectEvent><eventTime>2024-03-01T10:00:00.000+01:00</eventTime>"
        "<eventTimeZoneOffset>+01:00</eventTimeZoneOffset>"
        f"<epcList><epc>{epc}</epc></epcList><action>{action}</action>"
        "<bizStep>urn:epcglobal:cbv:bizstep:shipping</bizStep>"
        "<disposition>urn:epcglobal:cbv:disp:in_transit</disposition>"
        "<readPoint><id>urn:epc:id:sgln:4012345.00001.0</id></readPoint>"
        f"{extra}</ObjectEvent>"
    )


def documents(folder: Path) -> list[Path]:
    """The XML documents of a corpus folder, by name."""
    return sorted(folder.glob("*.xml"))


def canonical_events(
    events: Sequence[Mapping[str, Any]], namespaces: Mapping[str, str]
) -> list[tuple[str, ...]]:
    """The canonical forms of events, sorted, to compare as multisets."""
    return sorted(canonical(event, namespaces) for event in events)
