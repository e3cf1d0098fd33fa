"""One EPCIS XML event element (2.0, or 1.2 with its wrappers) as its JSON-LD twin.

The mapping is EPCIS 2.0's XML ↔ JSON correspondence: list wrappers and their item elements
disappear, CBV URNs become bare words, sensor attributes become typed properties, and
namespace-qualified elements (user extensions) become `prefix:name` keys whose prefixes the
`Namespaces` collect for the document's `@context`.
"""

from typing import Any

from lxml import etree

from domain.epcis.violations import Violation
from domain.epcis.xml_fields import (
    EPC_LISTS,
    EVENT_ID_ATTRIBUTE,
    EXTENSION_EVENT_FIELDS,
    FIELD_RANKS,
    GS1_VOCABULARY,
    ITEM_ELEMENTS,
    QUANTITY_LISTS,
    RESERVED_NAMESPACES,
    SENSOR_BOOLEANS,
    SENSOR_NUMBERS,
    VOCABULARY_OF,
    XSI,
    bare_word,
)
from domain.epcis.xml_paths import EventPlace

#: Elements that only wrap (1.2's `<extension>`/`<baseExtension>`; 2.0 keeps `<extension>`
#: for future standard fields): their children count as children of the wrapper's parent.
_WRAPPERS = frozenset({"extension", "baseExtension"})
#: Value prefixes that are URI schemes, never CURIE prefixes.
_SCHEMES = frozenset({"urn", "http", "https", "ni", "tag", "mailto"})
#: Sensor attributes whose values are GS1 vocabulary terms, and their vocabularies.
_SENSOR_KINDS = {
    "type": "measurementType",
    "exception": "sensorException",
    "component": "component",
}
_GS1_KINDS = frozenset({"measurementType", "sensorException"})
#: Every standard field may appear in an event of an extension type, in any order.
EXTENSION_EVENT_RANKS = dict.fromkeys(EXTENSION_EVENT_FIELDS, 1)


class Namespaces:
    """The prefixes extension elements use, as the document wrote them.

    A prefix is bound once for the document; an event that binds it to another namespace
    gets an `@context` of its own (the JSON binding allows one per event), and a namespace
    without a prefix (a default namespace) gets a made-up `nsN` prefix.
    """

    def __init__(self) -> None:
        self.document: dict[str, str] = {}
        self._by_namespace: dict[str, str] = {}
        self._made_up = 0

    def key(self, element: Any, own: dict[str, str], inherited: str | None = None) -> str:
        """The JSON key of an extension element (`prefix:local`), its prefix bound."""
        qname = etree.QName(element)
        if qname.namespace is None:
            # An unqualified child of an extension element keeps its bare name, as the
            # JSON twins of the OpenEPCIS corpus have it: it has no namespace to keep.
            return str(qname.localname)
        return self.bind(qname.namespace, qname.localname, element.prefix, own)

    def attribute_key(self, name: str, element: Any, own: dict[str, str]) -> str:
        """The JSON key of an attribute: its own name, or `prefix:local` when qualified."""
        qname = etree.QName(name)
        if qname.namespace is None:
            return str(qname.localname)
        prefix = next((p for p, ns in element.nsmap.items() if p and ns == qname.namespace), None)
        return self.bind(qname.namespace, qname.localname, prefix, own)

    def bind(self, namespace: str, local: str, prefix: str | None, own: dict[str, str]) -> str:
        """`prefix:local` for a name in `namespace`, the prefix bound in the document's
        context or, when the document bound it to another namespace, in the event's own."""
        reserved = RESERVED_NAMESPACES.get(namespace)
        if reserved is not None:
            return f"{reserved}:{local}"
        if prefix is None:
            prefix = self._by_namespace.get(namespace)
            if prefix is None:
                self._made_up += 1
                prefix = f"ns{self._made_up}"
        bound = own.get(prefix) or self.document.get(prefix)
        if bound is None:
            self.document[prefix] = namespace
        elif bound != namespace:
            own[prefix] = namespace
        self._by_namespace.setdefault(namespace, prefix)
        return f"{prefix}:{local}"


class EventReader:
    """Reads event elements into JSON-LD events, with the place of each field."""

    def __init__(self, namespaces: Namespaces, version: str) -> None:
        self._namespaces = namespaces
        self._strict = version.startswith("2")

    def read(
        self, element: Any, path: str, violations: list[Violation], kind: str | None = None
    ) -> tuple[dict[str, Any], EventPlace]:
        """The event, where its fields were, and what is wrong with its elements; `kind`
        is the type IRI of an event of an extension type (else the element names it)."""
        own: dict[str, str] = {}
        place = EventPlace(path)
        if kind is None:
            kind = str(etree.QName(element).localname)
            event: dict[str, Any] = {"type": kind}
            ranks, strict = FIELD_RANKS[kind], self._strict
        else:
            # An extension type's content is open (the XSD's `##local`, lax): no order.
            event = {"type": self._value(None, kind, element, own)}
            ranks, strict = EXTENSION_EVENT_RANKS, False
        node = element.get(EVENT_ID_ATTRIBUTE)
        if node is not None:
            event["id"] = node.strip()
        last_rank, last_name = 0, ""
        for child, where in _children(element, ""):
            name = etree.QName(child).localname
            if etree.QName(child).namespace is not None:
                key = self._namespaces.key(child, own)
                _put(event, key, self._extension(child, own, key.partition(":")[0]))
                place.fields.setdefault(key, where + _step(child))
                continue
            rank = ranks.get(name)
            if rank is None:
                violations.append(
                    Violation(
                        f"{path}/{where}{name}",
                        f"{name} is not a field of {kind}; an extension element needs a namespace",
                    )
                )
                continue
            if strict and rank < last_rank:
                violations.append(
                    Violation(
                        f"{path}/{where}{name}",
                        f"{name} must come before {last_name} (EPCIS 2.0 XML schema order)",
                    )
                )
            if rank >= last_rank:
                last_rank, last_name = rank, name
            if name in event:
                violations.append(Violation(f"{path}/{where}{name}", f"{name} appears twice"))
                continue
            event[name] = self._field(name, child, own)
            place.fields[name] = where + name
        if own:
            event["@context"] = [{p: ns} for p, ns in own.items()]
        return event, place

    def _value(self, kind: str | None, text: str, element: Any, own: dict[str, str]) -> str:
        """A standard field's IRI value: a CBV word made bare, and a CURIE whose prefix
        the XML declares (`cbv:BizStep-receiving`) expanded when it is a CBV word, or else
        kept with its prefix bound in the `@context` (XML binds it only in the markup)."""
        prefix, colon, rest = text.partition(":")
        namespace = element.nsmap.get(prefix) if colon and prefix not in _SCHEMES else None
        if prefix == "gs1" and kind in _GS1_KINDS:
            if namespace is None:
                # Undeclared, `gs1:` is the standard context's, as in a JSON value: kept.
                return text
            # Declared, it names the GS1 Web Vocabulary whatever URI the document wrote
            # (some write ref.gs1.org/voc/), as the hash reference reads it.
            namespace = GS1_VOCABULARY
        if namespace is None:
            return bare_word(kind, text) if kind else text
        if kind is not None:
            word = bare_word(kind, namespace + rest)
            if word != namespace + rest or kind in _GS1_KINDS:
                return word
        self._namespaces.bind(namespace, "", prefix, own)
        return text

    def _field(self, name: str, element: Any, own: dict[str, str]) -> Any:
        if name in EPC_LISTS:
            return [_text(item) for item in _items(element, "epc")]
        if name in QUANTITY_LISTS:
            return [_quantity(item) for item in _items(element, "quantityElement")]
        if name == "bizTransactionList":
            return [
                self._typed(item, "bizTransaction", "bizTransactionType", own)
                for item in _items(element, "bizTransaction")
            ]
        if name in ("sourceList", "destinationList"):
            item_name = ITEM_ELEMENTS[name]
            return [
                self._typed(item, item_name, "sourceDestType", own)
                for item in _items(element, item_name)
            ]
        if name in ("readPoint", "bizLocation", "ilmd", "errorDeclaration"):
            return self._record(element, own)
        if name == "persistentDisposition":
            lists: dict[str, list[str]] = {}
            for child, _ in _children(element, ""):
                word = etree.QName(child).localname
                lists.setdefault(word, []).append(
                    self._value("disposition", _text(child), child, own)
                )
            return lists
        if name == "sensorElementList":
            return [self._sensor_element(item, own) for item in _items(element, "sensorElement")]
        return self._value(VOCABULARY_OF.get(name), _text(element), element, own)

    def _typed(self, element: Any, name: str, kind: str, own: dict[str, str]) -> dict[str, Any]:
        item: dict[str, Any] = {}
        kind_value = element.get("type")
        if kind_value is not None:
            item["type"] = self._value(kind, kind_value.strip(), element, own)
        item[name] = _text(element)
        return item

    def _record(self, element: Any, own: dict[str, str]) -> dict[str, Any]:
        """A part made of standard fields and extension elements (readPoint, ilmd, …)."""
        record: dict[str, Any] = {}
        for child, _ in _children(element, ""):
            qname = etree.QName(child)
            if qname.namespace is not None:
                key = self._namespaces.key(child, own)
                _put(record, key, self._extension(child, own, key.partition(":")[0]))
            elif qname.localname == "correctiveEventIDs":
                record["correctiveEventIDs"] = [
                    _text(item) for item in _items(child, "correctiveEventID")
                ]
            else:
                kind = VOCABULARY_OF.get(qname.localname)
                _put(record, qname.localname, self._value(kind, _text(child), child, own))
        return record

    def _sensor_element(self, element: Any, own: dict[str, str]) -> dict[str, Any]:
        sensor: dict[str, Any] = {}
        for child, _ in _children(element, ""):
            qname = etree.QName(child)
            if qname.namespace is not None:
                key = self._namespaces.key(child, own)
                _put(sensor, key, self._extension(child, own, key.partition(":")[0]))
            elif qname.localname == "sensorMetadata":
                sensor["sensorMetadata"] = self._sensor_attributes(child, own)
            elif qname.localname == "sensorReport":
                sensor.setdefault("sensorReport", []).append(self._sensor_attributes(child, own))
            else:
                _put(sensor, qname.localname, _text(child))
        return sensor

    def _sensor_attributes(self, element: Any, own: dict[str, str]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, value in element.attrib.items():
            if name.startswith("{" + XSI + "}"):
                continue
            key = self._namespaces.attribute_key(name, element, own)
            if key in SENSOR_NUMBERS:
                values[key] = _number(value)
            elif key in SENSOR_BOOLEANS:
                values[key] = {"true": True, "1": True, "false": False, "0": False}.get(
                    value.strip(), value
                )
            elif key in _SENSOR_KINDS:
                values[key] = self._value(_SENSOR_KINDS[key], value.strip(), element, own)
            else:
                values[key] = value
        return values

    def extension_value(self, element: Any, key: str) -> Any:
        """The value of an extension element outside any event (on the document)."""
        return self._extension(element, {}, key.partition(":")[0])

    def _extension(self, element: Any, own: dict[str, str], prefix: str) -> Any:
        """An extension element's value: its text, or an object of its attributes and
        children (attributes as keys like children, as the OpenEPCIS JSON twins have them;
        text beside attributes under `value`)."""
        value: dict[str, Any] = {
            self._namespaces.attribute_key(name, element, own): text
            for name, text in element.attrib.items()
            if not name.startswith("{" + XSI + "}")
        }
        children = [child for child in element if isinstance(child.tag, str)]
        if not children:
            text = (element.text or "").strip()
            if not value:
                return text
            if text:
                value["value"] = text
            return value
        for child in children:
            key = self._namespaces.key(child, own, prefix)
            _put(value, key, self._extension(child, own, key.partition(":")[0]))
        return value


def _step(element: Any) -> str:
    qname = etree.QName(element)
    return f"{element.prefix}:{qname.localname}" if element.prefix else qname.localname


def _children(element: Any, where: str) -> list[tuple[Any, str]]:
    """The element's child elements, those of wrappers in their place, each with the
    wrappers it was found in (`extension/`)."""
    found: list[tuple[Any, str]] = []
    for child in element:
        if not isinstance(child.tag, str):
            continue  # a comment or processing instruction
        qname = etree.QName(child)
        if qname.namespace is None and qname.localname in _WRAPPERS:
            found.extend(_children(child, f"{where}{qname.localname}/"))
        else:
            found.append((child, where))
    return found


def _items(element: Any, name: str) -> list[Any]:
    return [child for child, _ in _children(element, "") if etree.QName(child).localname == name]


def _text(element: Any) -> str:
    return (element.text or "").strip()


def _put(record: dict[str, Any], key: str, value: Any) -> None:
    """Set a key; repeated elements of one name become a list (no single element reads
    as a list, so a list here is always one of repeats)."""
    existing = record.get(key)
    if existing is None:
        record[key] = value
    elif isinstance(existing, list):
        existing.append(value)
    else:
        record[key] = [existing, value]


def _number(text: str) -> Any:
    """A decimal as a JSON number (an integer when it is whole), or the text if it is none."""
    stripped = text.strip()
    try:
        number = float(stripped)
    except ValueError:
        return text
    if number.is_integer() and abs(number) < 2**53:
        return int(number)
    return number


def _quantity(element: Any) -> dict[str, Any]:
    quantity: dict[str, Any] = {}
    for child, _ in _children(element, ""):
        name = etree.QName(child).localname
        quantity[name] = _number(_text(child)) if name == "quantity" else _text(child)
    return quantity
