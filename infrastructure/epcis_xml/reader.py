"""Reads an EPCIS 2.0 or 1.2 XML document into its JSON-LD twin, hardened and streaming.

The parser resolves no entity, loads no DTD and reaches no network, and a document that
has a DTD at all is refused before its first element is read: billion-laughs and XXE
documents need one. Events are converted one at a time as their end tag arrives and then
dropped from the tree, so a large document is never held as a whole tree beside its dict.
"""

import io
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from domain.epcis.violations import Violation
from domain.epcis.xml_fields import (
    EPCIS_1,
    EPCIS_2,
    EPCIS_QUERY_1,
    EPCIS_QUERY_2,
    EVENT_TYPES,
    EXTENSION_EVENT_WRAPPER,
)
from domain.epcis.xml_paths import XmlPlaces
from infrastructure.epcis_xml.events_in import EventReader, Namespaces
from infrastructure.epcis_xml.header_in import read_header

EPCIS_CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"


class XmlDocumentRejected(Exception):
    """The body is no EPCIS XML document this service reads; `violations` say why."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__("; ".join(str(v) for v in violations))
        self.violations = violations


class TooManyEvents(Exception):
    """The document holds more events than the caller reads (`limit`)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} events")
        self.limit = limit


@dataclass
class XmlDocument:
    """An XML document as the EPCISDocument JSON-LD it stands for, and where each part was."""

    document: dict[str, Any]
    places: XmlPlaces
    version: str
    #: Element paths of what the reader could not map (an unknown element, a bad order).
    violations: list[Violation] = field(default_factory=list)


def read_xml_document(
    body: bytes, max_events: int | None = None, *, query_documents: bool = False
) -> XmlDocument:
    """The JSON-LD twin of an EPCIS XML document (EPCISDocument, 2.0 or 1.x), its events
    in `epcisBody.eventList`; with `query_documents`, an EPCISQueryDocument's events too.

    Raises XmlDocumentRejected when the body is not well-formed, has a DTD, or its root is
    not an EPCISDocument; TooManyEvents past `max_events`.
    """
    return _Walk(max_events, query_documents).run(body)


def _parser_events(body: bytes) -> Any:
    return etree.iterparse(
        io.BytesIO(body),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


class _Walk:
    """One pass over a document's parse events, keeping the element path as it goes."""

    def __init__(self, max_events: int | None, query_documents: bool) -> None:
        self._max_events = max_events
        self._roots = {EPCIS_2: "EPCISDocument", EPCIS_1: "EPCISDocument"}
        if query_documents:
            self._roots |= dict.fromkeys((EPCIS_QUERY_2, EPCIS_QUERY_1), "EPCISQueryDocument")
        self._path: list[str] = []
        self._counts: list[dict[str, int]] = [{}]
        self._namespaces = Namespaces()
        self._places = XmlPlaces()
        self._events: list[dict[str, Any]] = []
        self._violations: list[Violation] = []
        self._document: dict[str, Any] = {}
        self._reader: EventReader | None = None
        self._version = ""
        self._query = False

    def run(self, body: bytes) -> XmlDocument:
        try:
            for action, element in _parser_events(body):
                if action == "start":
                    self._start(element)
                else:
                    self._end(element)
        except etree.XMLSyntaxError as exc:
            where = "/".join(self._path) or "(root)"
            line, column = exc.position
            reason = f"The body is not well-formed XML: {exc.msg}"
            if "line" not in exc.msg:
                reason += f" (line {line}, column {column})"
            raise XmlDocumentRejected([Violation(where, reason)]) from exc
        if not self._version:
            raise XmlDocumentRejected([Violation("(root)", "The body holds no XML element")])
        document = {
            "@context": [EPCIS_CONTEXT],
            "type": "EPCISDocument",
            **self._document,
        }
        if self._namespaces.document:
            document["@context"].append(dict(self._namespaces.document))
        document["epcisBody"] = {"eventList": self._events}
        return XmlDocument(document, self._places, self._version, self._violations)

    def _start(self, element: Any) -> None:
        qname = etree.QName(element)
        step = _step(element)
        if not self._path:
            self._root(element, qname)
            step = qname.localname
        counts = self._counts[-1]
        counts[step] = counts.get(step, 0) + 1
        in_list = "EventList" in self._path and all(
            part.startswith("extension") for part in self._path[self._path.index("EventList") + 1 :]
        )
        # Members of the event list are numbered (ObjectEvent[3]); the path above is unique.
        self._path.append(f"{step}[{counts[step]}]" if in_list else step)
        self._counts.append({})

    def _root(self, element: Any, qname: Any) -> None:
        if element.getroottree().docinfo.doctype:
            raise XmlDocumentRejected(
                [
                    Violation(
                        "(root)",
                        "The document has a document type declaration (<!DOCTYPE …>); "
                        "EPCIS documents need none and this service accepts none",
                    )
                ]
            )
        if self._roots.get(qname.namespace or "") != qname.localname:
            raise XmlDocumentRejected(
                [
                    Violation(
                        _step(element),
                        f"The root element is {{{qname.namespace or ''}}}{qname.localname}; "
                        f"capture takes an EPCISDocument in {EPCIS_2} (EPCIS 2.0) or "
                        f"{EPCIS_1} (EPCIS 1.x)",
                    )
                ]
            )
        declared = element.get("schemaVersion")
        self._version = declared or ("2.0" if qname.namespace == EPCIS_2 else "1.2")
        self._places.root = qname.localname
        self._document["schemaVersion"] = self._version if self._version.startswith("2") else "2.0"
        created = element.get("creationDate")
        if created is not None:
            self._document["creationDate"] = created
        major = "2" if qname.namespace in (EPCIS_2, EPCIS_QUERY_2) else "1"
        self._reader = EventReader(self._namespaces, major)
        self._query = qname.localname == "EPCISQueryDocument"

    def _end(self, element: Any) -> None:
        path = "/".join(self._path)
        self._path.pop()
        self._counts.pop()
        depth = len(self._path)
        qname = etree.QName(element)
        if depth == 1 and qname.namespace is None and qname.localname == "EPCISHeader":
            read_header(element, self._document)
            element.clear()
        elif depth == 1 and qname.namespace is not None:
            self._document_extension(element)
        elif qname.localname in EVENT_TYPES and qname.namespace is None and self._in_event_list():
            self._event(element, path)
        elif depth == 3 and self._path[1:] == ["EPCISBody", "EventList"]:
            self._unknown_in_event_list(element, path)
        elif depth and _bare(self._path[-1]) == EXTENSION_EVENT_WRAPPER and self._in_event_list():
            self._extension_event(element, path)

    def _in_event_list(self) -> bool:
        """Whether the element that just ended sits in the EventList (or in 1.2's
        `<extension>` wrappers there): `EPCISBody/EventList`, in a query document
        wherever its results put it."""
        if "EventList" not in self._path:
            return False
        at = self._path.index("EventList")
        if not all(step.startswith("extension") for step in self._path[at + 1 :]):
            return False
        return self._query or self._path[1 : at + 1] == ["EPCISBody", "EventList"]

    def _unknown_in_event_list(self, element: Any, path: str) -> None:
        qname = etree.QName(element)
        if qname.namespace is None and qname.localname == "extension":
            return
        if qname.localname in EVENT_TYPES:
            reason = (
                f"{qname.localname} is in the namespace {qname.namespace}; the events of an "
                "EPCIS document and their fields have no namespace (the XML schema's "
                "elementFormDefault is unqualified)"
            )
        else:
            reason = f"{qname.localname} is not an EPCIS event type this service reads"
        self._violations.append(Violation(path, reason))
        _drop(element)

    def _extension_event(self, element: Any, path: str) -> None:
        """An element in the event list's `<extension>`: an event of an extension type,
        which names its IRI in a `type` attribute (`EventList/extension/<X type="IRI">`)."""
        qname = etree.QName(element)
        if qname.localname == EXTENSION_EVENT_WRAPPER and qname.namespace is None:
            return
        kind = (element.get("type") or "").strip()
        if qname.namespace is not None or not kind:
            self._violations.append(
                Violation(
                    path,
                    f"{qname.localname} is not an EPCIS event type this service reads; an "
                    "event of an extension type is an unqualified element in the event "
                    'list\'s <extension> that names its type IRI in a "type" attribute',
                )
            )
            _drop(element)
            return
        self._event(element, path, kind)

    def _event(self, element: Any, path: str, kind: str | None = None) -> None:
        assert self._reader is not None
        if self._max_events is not None and len(self._events) >= self._max_events:
            raise TooManyEvents(self._max_events)
        event, place = self._reader.read(element, path, self._violations, kind)
        self._events.append(event)
        self._places.events.append(place)
        _drop(element)

    def _document_extension(self, element: Any) -> None:
        key = self._namespaces.key(element, {})
        if key.endswith(":ignoreFields"):
            # Names the fields the event hash leaves out: its children's names are the value.
            self._document[key] = [
                self._namespaces.key(child, {}) for child in element if isinstance(child.tag, str)
            ]
        else:
            assert self._reader is not None
            self._document[key] = self._reader.extension_value(element, key)
        _drop(element)


def _bare(step: str) -> str:
    """A path step without its number (`extension[2]` → `extension`)."""
    return step.partition("[")[0]


def _step(element: Any) -> str:
    qname = etree.QName(element)
    return f"{element.prefix}:{qname.localname}" if element.prefix else qname.localname


def _drop(element: Any) -> None:
    """Free a converted element and the siblings before it (iterparse keeps them)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]
