"""The CBV 2.0 event hash's canonical order of fields, and which fields it names otherwise
(renamed, paired, left out, CBV-typed), as the reference implementation has them. Both
paths of `event_hash.py` read these tables, so the two cannot disagree on them."""

# A canonical order: field name → (its position, the order of its own fields if any,
# whether its value is a timestamp).
Order = dict[str, tuple[int, "Order | None", bool]]


def order(*fields: str | tuple[str, "Order"]) -> Order:
    order: Order = {}
    for position, field in enumerate(fields):
        name, inner = (field, None) if isinstance(field, str) else field
        lowered = name.lower()
        order[name] = (position, inner, "time" in lowered and "offset" not in lowered)
    return order


EPCS = order("epc")
QUANTITIES = order(("quantityElement", order("epcClass", "quantity", "uom")))
PLACE = order("id")
SENSOR_METADATA = order(
    "time",
    "startTime",
    "endTime",
    "deviceID",
    "deviceMetadata",
    "rawData",
    "dataProcessingMethod",
    "bizRules",
)
SENSOR_REPORT = order(
    "type",
    "exception",
    "deviceID",
    "deviceMetadata",
    "rawData",
    "dataProcessingMethod",
    "time",
    "microorganism",
    "chemicalSubstance",
    "value",
    "component",
    "stringValue",
    "booleanValue",
    "hexBinaryValue",
    "uriValue",
    "minValue",
    "maxValue",
    "meanValue",
    "sDev",
    "percRank",
    "percValue",
    "uom",
    "coordinateReferenceSystem",
)
# bizTransactionList, sourceList and destinationList are not here: the reference
# implementation hashes them among the trailing, sorted fields.
EVENT_ORDER = order(
    "eventTime",
    "eventTimeZoneOffset",
    "certificationInfo",
    "parentID",
    ("epcList", EPCS),
    ("inputEPCList", EPCS),
    ("childEPCs", EPCS),
    ("quantityList", QUANTITIES),
    ("childQuantityList", QUANTITIES),
    ("inputQuantityList", QUANTITIES),
    ("outputEPCList", EPCS),
    ("outputQuantityList", QUANTITIES),
    "action",
    "transformationID",
    "bizStep",
    "disposition",
    ("persistentDisposition", order("set", "unset")),
    ("readPoint", PLACE),
    ("bizLocation", PLACE),
    (
        "sensorElementList",
        order(
            (
                "sensorElement",
                order(("sensorMetadata", SENSOR_METADATA), ("sensorReport", SENSOR_REPORT)),
            )
        ),
    ),
)
NOT_HASHED = frozenset({"eventID", "recordTime", "type", "errorDeclaration"})
COMMENTS = frozenset({"#text", "rdfs:comment", "comment"})
PAIR_LISTS = frozenset({"bizTransactionList", "sourceList", "destinationList"})
PAIR_MEMBERS = frozenset({"bizTransaction", "source", "destination"})
RENAMED = {
    "inputEPC": "epc",
    "outputEPC": "epc",
    "inputQuantity": "quantityElement",
    "outputQuantity": "quantityElement",
    "childQuantity": "quantityElement",
}

# Where JSON-LD bare words stand for CBV values: scope → field → vocabulary.
VOCABULARY_FIELDS: dict[str, dict[str, str]] = {
    "event": {"bizStep": "bizStep", "disposition": "disposition"},
    "persistentDisposition": {"set": "disposition", "unset": "disposition"},
    "bizTransaction": {"type": "bizTransactionType"},
    "party": {"type": "sourceDestType"},
    "sensorReport": {
        "type": "measurementType",
        "exception": "sensorException",
        "component": "component",
    },
}
# Scope → field → the scope of the objects in that field.
NESTED_SCOPES: dict[str, dict[str, str]] = {
    "event": {
        "persistentDisposition": "persistentDisposition",
        "bizTransactionList": "bizTransaction",
        "sourceList": "party",
        "destinationList": "party",
        "sensorElementList": "sensorElement",
    },
    "sensorElement": {"sensorReport": "sensorReport"},
}
