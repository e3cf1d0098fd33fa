"""How EPCIS 2.0 XML spells the standard fields of an event, and their JSON-LD twins.

The XML binding (EPCIS 2.0 §9, the 2.0 XSD) names the same fields as the JSON binding, but
wraps lists in item elements, puts some values in attributes, writes CBV values as URNs and
fixes an element order. These tables say which is which, for reading and for writing.
"""

from domain.epcis.cbv import CBV_URN_ROOT, VOCABULARIES

#: The namespace of EPCIS 2.0 documents, and of their query documents.
EPCIS_2 = "urn:epcglobal:epcis:xsd:2"
EPCIS_QUERY_2 = "urn:epcglobal:epcis-query:xsd:2"
#: EPCIS 1.x (1.0, 1.1 and 1.2 share them).
EPCIS_1 = "urn:epcglobal:epcis:xsd:1"
EPCIS_QUERY_1 = "urn:epcglobal:epcis-query:xsd:1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"

EVENT_TYPES = (
    "ObjectEvent",
    "AggregationEvent",
    "TransactionEvent",
    "TransformationEvent",
    "AssociationEvent",
)

#: Fields every event starts with, in the 2.0 XSD's order.
BASE_FIELDS = (
    "eventTime",
    "recordTime",
    "eventTimeZoneOffset",
    "eventID",
    "errorDeclaration",
    "certificationInfo",
)
_TAIL = ("sensorElementList", "persistentDisposition")

#: Each event type's fields after the base ones, in the 2.0 XSD's order.
TYPE_FIELDS: dict[str, tuple[str, ...]] = {
    "ObjectEvent": (
        "epcList",
        "action",
        "bizStep",
        "disposition",
        "readPoint",
        "bizLocation",
        "bizTransactionList",
        "quantityList",
        "sourceList",
        "destinationList",
        *_TAIL,
        "ilmd",
    ),
    "AggregationEvent": (
        "parentID",
        "childEPCs",
        "action",
        "bizStep",
        "disposition",
        "readPoint",
        "bizLocation",
        "bizTransactionList",
        "childQuantityList",
        "sourceList",
        "destinationList",
        *_TAIL,
    ),
    "TransactionEvent": (
        "bizTransactionList",
        "parentID",
        "epcList",
        "action",
        "bizStep",
        "disposition",
        "readPoint",
        "bizLocation",
        "quantityList",
        "sourceList",
        "destinationList",
        *_TAIL,
    ),
    "TransformationEvent": (
        "inputEPCList",
        "inputQuantityList",
        "outputEPCList",
        "outputQuantityList",
        "transformationID",
        "bizStep",
        "disposition",
        "readPoint",
        "bizLocation",
        "bizTransactionList",
        "sourceList",
        "destinationList",
        *_TAIL,
        "ilmd",
    ),
    "AssociationEvent": (
        "parentID",
        "childEPCs",
        "childQuantityList",
        "action",
        "bizStep",
        "disposition",
        "readPoint",
        "bizLocation",
        "bizTransactionList",
        "sourceList",
        "destinationList",
        *_TAIL,
    ),
}

#: Fields whose relative order the corpus of real documents does not keep (the hash
#: vectors write `ilmd` before `sensorElementList`): one rank for all of them.
_SAME_RANK = frozenset({"sensorElementList", "persistentDisposition", "ilmd"})


def _ranks(fields: tuple[str, ...]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    rank = 0
    for name in fields:
        if name in _SAME_RANK and any(other in ranks for other in _SAME_RANK):
            ranks[name] = next(ranks[other] for other in _SAME_RANK if other in ranks)
            continue
        rank += 1
        ranks[name] = rank
    return ranks


#: Position of each standard field in its event type's element sequence.
FIELD_RANKS: dict[str, dict[str, int]] = {
    kind: _ranks(BASE_FIELDS + fields) for kind, fields in TYPE_FIELDS.items()
}

#: The standard fields an event of an extension type (its `type` an IRI) is written with,
#: in this order: the base fields, then every other field in the order of the first type
#: that has it. The XSD leaves the content of such an event open (`##local`, lax).
EXTENSION_EVENT_FIELDS = tuple(
    dict.fromkeys(BASE_FIELDS + tuple(f for fields in TYPE_FIELDS.values() for f in fields))
)
#: Where an event of an extension type goes: `EventList/extension/<Name type="IRI">`, the
#: XSD's place for event types it does not name (`EPCISEventListExtensionType`, unqualified
#: elements, as 1.x put TransformationEvent); `type` keeps the IRI the name cannot hold.
EXTENSION_EVENT_WRAPPER = "extension"
#: The JSON-LD `id` of an event, written as RDF/XML names a node (`rdf:about`), in the
#: event element's open attributes (`EPCISEventType`'s `xsd:anyAttribute`).
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
EVENT_ID_ATTRIBUTE = f"{{{RDF}}}about"

#: Lists of EPCs and the element each item is written in.
EPC_LISTS = frozenset({"epcList", "childEPCs", "inputEPCList", "outputEPCList"})
QUANTITY_LISTS = frozenset(
    {"quantityList", "childQuantityList", "inputQuantityList", "outputQuantityList"}
)
#: A list's item element, for every list field of an event or of its parts.
ITEM_ELEMENTS: dict[str, str] = {
    **dict.fromkeys(EPC_LISTS, "epc"),
    **dict.fromkeys(QUANTITY_LISTS, "quantityElement"),
    "bizTransactionList": "bizTransaction",
    "sourceList": "source",
    "destinationList": "destination",
    "sensorElementList": "sensorElement",
    "correctiveEventIDs": "correctiveEventID",
}
#: Lists whose items are written as repeated elements of the list's own name.
REPEATED_ELEMENTS = frozenset({"sensorReport", "set", "unset"})

#: The order of a quantity element's fields.
QUANTITY_FIELDS = ("epcClass", "quantity", "uom")
#: The order of an error declaration's standard fields.
DECLARATION_FIELDS = ("declarationTime", "reason", "correctiveEventIDs")

#: Sensor attributes that are numbers (xsd:double) and the one that is a boolean.
SENSOR_NUMBERS = frozenset(
    {"value", "minValue", "maxValue", "meanValue", "sDev", "percRank", "percValue"}
)
SENSOR_BOOLEANS = frozenset({"booleanValue"})

#: Which CBV vocabulary a field's value belongs to, for the fields written as URNs in XML.
VOCABULARY_OF: dict[str, str] = {
    "bizStep": "bizStep",
    "disposition": "disposition",
    "set": "disposition",
    "unset": "disposition",
    "reason": "errorReason",
}
#: The namespace the standard `@context` binds `gs1:` to (sensor types and exceptions).
GS1_VOCABULARY = "https://gs1.org/voc/"

#: XML namespaces that the standard EPCIS `@context` binds under a prefix of its own, so
#: their elements become keys with that prefix whatever prefix the document chose.
RESERVED_NAMESPACES: dict[str, str] = {
    "urn:epcglobal:cbv:mda": "cbvmda",
    "urn:epcglobal:cbv:mda#": "cbvmda",
}


def bare_word(kind: str, value: str) -> str:
    """A CBV value as the JSON binding writes it: the bare word when `value` is a CBV URN
    or GS1 Web URI of a standard word of vocabulary `kind`, else `value` unchanged."""
    vocabulary = VOCABULARIES[kind]
    for prefix in (vocabulary.urn_prefix, vocabulary.web_prefix, "gs1:"):
        if prefix and value.startswith(prefix) and value[len(prefix) :] in vocabulary.words:
            return value[len(prefix) :]
    return value


def cbv_urn(kind: str, value: str) -> str:
    """A CBV value as 1.x-era XML consumers expect it: the CBV URN of a standard bare word
    of vocabulary `kind`, or its Web URI where CBV 1.x had no URN (sensor types); other
    values unchanged."""
    vocabulary = VOCABULARIES[kind]
    if value not in vocabulary.words:
        return value
    if vocabulary.urn_prefix is not None and vocabulary.urn_prefix.startswith(CBV_URN_ROOT):
        return vocabulary.urn_prefix + value
    return vocabulary.web_prefix + value
