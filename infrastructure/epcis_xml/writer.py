"""EPCIS 2.0 XML query documents (`urn:epcglobal:epcis-query:xsd:2`) from stored JSON-LD events.

The reverse of `events_in`: standard fields in the XSD's order, lists in their item
elements, bare CBV words as CBV URNs (what XML consumers of the 1.x era expect, the
binding's `No_Preference` choice), sensor values as attributes, and every `prefix:name` key
as an element in the namespace its event's `@context` binds the prefix to. An event of an
extension type goes in the event list's `<extension>`, named by its IRI's last segment
with the IRI in `type`; an event's JSON-LD `id` is its `rdf:about`. Read back by
`read_xml_document`, a document gives the events it was written from.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from lxml import etree

from domain.epcis.curies import context_prefixes
from domain.epcis.xml_fields import (
    BASE_FIELDS,
    DECLARATION_FIELDS,
    EPC_LISTS,
    EPCIS_2,
    EPCIS_QUERY_2,
    EVENT_ID_ATTRIBUTE,
    EXTENSION_EVENT_FIELDS,
    EXTENSION_EVENT_WRAPPER,
    ITEM_ELEMENTS,
    QUANTITY_FIELDS,
    QUANTITY_LISTS,
    RDF,
    TYPE_FIELDS,
    VOCABULARY_OF,
    cbv_urn,
)

#: Prefixes the standard `@context` binds, for extension keys that use them unbound.
_STANDARD = {
    "cbvmda": "urn:epcglobal:cbv:mda",
    "gs1": "https://gs1.org/voc/",
    "cbv": "https://ref.gs1.org/cbv/",
    "epcis": "https://ref.gs1.org/epcis/",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
}
_SENSOR_KINDS = {"type": "measurementType", "exception": "sensorException"}
_COMPONENT_PREFIX = "https://ref.gs1.org/cbv/Comp-"
#: An XML name without a prefix (NCName), ASCII only: what an element may be called.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def capture_document_xml(
    events: Sequence[str | Mapping[str, Any]], namespaces: Mapping[str, str], created: str
) -> bytes:
    """An EPCIS 2.0 XML EPCISDocument holding these events (their stored JSON)."""
    root = etree.Element(
        f"{{{EPCIS_2}}}EPCISDocument",
        {"schemaVersion": "2.0", "creationDate": created},
        nsmap={"epcis": EPCIS_2, **{p: n for p, n in namespaces.items() if p != "epcis"}},
    )
    event_list = etree.SubElement(etree.SubElement(root, "EPCISBody"), "EventList")
    for event in events:
        parsed = orjson.loads(event) if isinstance(event, str) else event
        _EventWriter(dict(namespaces)).write(event_list, parsed)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def query_document_xml(
    events: Sequence[str | Mapping[str, Any]],
    namespaces: Mapping[str, str],
    created: str,
    query_name: str,
    subscription_id: str | None = None,
) -> bytes:
    """An EPCISQueryDocument in XML holding these events (their stored JSON, or parsed)."""
    nsmap: dict[str | None, str] = {"epcisq": EPCIS_QUERY_2}
    for prefix, namespace in namespaces.items():
        if prefix != "epcisq":
            nsmap[prefix] = namespace
    root = etree.Element(
        f"{{{EPCIS_QUERY_2}}}EPCISQueryDocument",
        {"schemaVersion": "2.0", "creationDate": created},
        nsmap=nsmap,
    )
    body = etree.SubElement(root, "EPCISBody")
    results = etree.SubElement(body, f"{{{EPCIS_QUERY_2}}}QueryResults")
    etree.SubElement(results, "queryName").text = query_name
    if subscription_id is not None:
        etree.SubElement(results, "subscriptionID").text = subscription_id
    event_list = etree.SubElement(etree.SubElement(results, "resultsBody"), "EventList")
    for event in events:
        parsed = orjson.loads(event) if isinstance(event, str) else event
        _EventWriter(dict(namespaces)).write(event_list, parsed)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


class _EventWriter:
    """Writes one event; knows the namespaces its keys' prefixes stand for."""

    def __init__(self, namespaces: dict[str, str]) -> None:
        self._namespaces = namespaces

    def write(self, parent: Any, event: Mapping[str, Any]) -> None:
        own: dict[str, str] = {}
        for prefix, namespace in context_prefixes(event.get("@context")).items():
            if namespace is None:
                self._namespaces.pop(prefix, None)
            else:
                self._namespaces[prefix] = namespace
                own[prefix] = namespace
        kind = str(event.get("type", ""))
        if "id" in event:
            own.setdefault("rdf", RDF)
        if kind in TYPE_FIELDS:
            element = etree.SubElement(parent, kind, nsmap=own or None)
            fields = BASE_FIELDS + TYPE_FIELDS[kind]
        else:
            wrapper = etree.SubElement(parent, EXTENSION_EVENT_WRAPPER)
            element = etree.SubElement(wrapper, _element_name(kind), nsmap=own or None)
            element.set("type", kind)
            fields = EXTENSION_EVENT_FIELDS
        if "id" in event:
            element.set(EVENT_ID_ATTRIBUTE, _text(event["id"]))
        for name in fields:
            if name in event:
                self._field(element, name, event[name])
        for key, value in event.items():
            if ":" in key and not key.startswith("@"):
                self._extension(element, key, value)

    def _field(self, parent: Any, name: str, value: Any) -> None:
        if name in EPC_LISTS:
            self._items(parent, name, "epc", value)
        elif name in QUANTITY_LISTS:
            wrapper = etree.SubElement(parent, name)
            for quantity in value:
                item = etree.SubElement(wrapper, "quantityElement")
                for field in QUANTITY_FIELDS:
                    if field in quantity:
                        etree.SubElement(item, field).text = _text(quantity[field])
        elif name in ("bizTransactionList", "sourceList", "destinationList"):
            self._typed(parent, name, value)
        elif name in ("readPoint", "bizLocation", "ilmd"):
            self._record(etree.SubElement(parent, name), value, ("id",))
        elif name == "errorDeclaration":
            self._record(etree.SubElement(parent, name), value, DECLARATION_FIELDS)
        elif name == "persistentDisposition":
            wrapper = etree.SubElement(parent, name)
            for part in ("unset", "set"):
                for word in value.get(part, ()):
                    etree.SubElement(wrapper, part).text = cbv_urn("disposition", word)
        elif name == "sensorElementList":
            wrapper = etree.SubElement(parent, name)
            for sensor in value:
                self._sensor_element(etree.SubElement(wrapper, "sensorElement"), sensor)
        else:
            kind = VOCABULARY_OF.get(name)
            text = _text(value)
            etree.SubElement(parent, name).text = cbv_urn(kind, text) if kind else text

    def _items(self, parent: Any, name: str, item: str, values: Sequence[Any]) -> None:
        wrapper = etree.SubElement(parent, name)
        for value in values:
            etree.SubElement(wrapper, item).text = _text(value)

    def _typed(self, parent: Any, name: str, values: Sequence[Mapping[str, Any]]) -> None:
        item_name = ITEM_ELEMENTS[name]
        kind = "bizTransactionType" if name == "bizTransactionList" else "sourceDestType"
        wrapper = etree.SubElement(parent, name)
        for value in values:
            item = etree.SubElement(wrapper, item_name)
            if "type" in value:
                item.set("type", cbv_urn(kind, str(value["type"])))
            item.text = _text(value.get(item_name, ""))

    def _record(self, element: Any, record: Mapping[str, Any], standard: tuple[str, ...]) -> None:
        """A part of standard fields in their order, then its extension elements."""
        for name in standard:
            if name not in record:
                continue
            if name == "correctiveEventIDs":
                self._items(element, name, "correctiveEventID", record[name])
            else:
                kind = VOCABULARY_OF.get(name)
                text = _text(record[name])
                etree.SubElement(element, name).text = cbv_urn(kind, text) if kind else text
        for key, value in record.items():
            if key not in standard:
                self._extension(element, key, value)

    def _sensor_element(self, element: Any, sensor: Mapping[str, Any]) -> None:
        if "sensorMetadata" in sensor:
            self._attributes(etree.SubElement(element, "sensorMetadata"), sensor["sensorMetadata"])
        for report in sensor.get("sensorReport", ()):
            self._attributes(etree.SubElement(element, "sensorReport"), report)
        for key, value in sensor.items():
            if key not in ("sensorMetadata", "sensorReport"):
                self._extension(element, key, value)

    def _attributes(self, element: Any, values: Mapping[str, Any]) -> None:
        for key, value in values.items():
            text = _text(value)
            if key in _SENSOR_KINDS:
                text = cbv_urn(_SENSOR_KINDS[key], text)
            elif key == "component" and ":" not in text:
                text = _COMPONENT_PREFIX + text
            name = self._qualified(key)
            if name is not None:
                element.set(name, text)

    def _extension(self, parent: Any, key: str, value: Any) -> None:
        """An extension key as elements: repeated for a list, nested for an object."""
        name = self._qualified(key)
        if name is None:
            parent.append(etree.Comment(f" {key} left out: its prefix names no namespace "))
            return
        for item in value if isinstance(value, list) else [value]:
            element = etree.SubElement(parent, name)
            if isinstance(item, Mapping):
                for child_key, child in item.items():
                    self._extension(element, child_key, child)
            else:
                element.text = _text(item)

    def _qualified(self, key: str) -> str | None:
        """The lxml name of a key: `{namespace}local` for `prefix:local`, else the key."""
        prefix, colon, local = key.partition(":")
        if not colon:
            return key
        if local.startswith("//"):
            namespace, _, local = key.rpartition("/")
            return f"{{{namespace}/}}{local}" if local else None
        bound = self._namespaces.get(prefix) or _STANDARD.get(prefix)
        return f"{{{bound}}}{local}" if bound else None


def query_document_from_json(parsed: Mapping[str, Any]) -> bytes:
    """The XML form of a (parsed) JSON EPCISQueryDocument (what a subscription delivers)."""
    results = parsed["epcisBody"]["queryResults"]
    return query_document_xml(
        results["resultsBody"]["eventList"],
        {p: n for p, n in context_prefixes(parsed.get("@context")).items() if n is not None},
        parsed.get("creationDate", ""),
        results.get("queryName", ""),
        results.get("subscriptionID"),
    )


def _element_name(kind: str) -> str:
    """The element name of an extension event type: the IRI's last segment when that is an
    XML name (`…/CoolingEvent` → `CoolingEvent`), else `Event`; `type` holds the IRI."""
    local = re.split(r"[/#:]", kind)[-1]
    return local if _NAME.fullmatch(local) else "Event"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return repr(value)
    return orjson.dumps(value).decode()
