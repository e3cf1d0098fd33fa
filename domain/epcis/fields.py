"""The names of the standard fields of EPCIS 2.0 events, and what counts as an extension."""

STANDARD_EVENT_FIELDS = frozenset(
    {
        "@context",
        "type",
        "eventID",
        "eventTime",
        "eventTimeZoneOffset",
        "recordTime",
        "errorDeclaration",
        "certificationInfo",
        "epcList",
        "quantityList",
        "action",
        "bizStep",
        "disposition",
        "persistentDisposition",
        "readPoint",
        "bizLocation",
        "bizTransactionList",
        "sourceList",
        "destinationList",
        "sensorElementList",
        "ilmd",
        "parentID",
        "childEPCs",
        "childQuantityList",
        "inputEPCList",
        "inputQuantityList",
        "outputEPCList",
        "outputQuantityList",
        "transformationID",
    }
)

EVENT_TYPES = (
    "ObjectEvent",
    "AggregationEvent",
    "TransactionEvent",
    "TransformationEvent",
    "AssociationEvent",
)


def is_extension_field(name: str) -> bool:
    """A user extension is named by a CURIE (`example:field`) or an absolute URI."""
    return name not in STANDARD_EVENT_FIELDS and ":" in name


def expand_name(name: str, namespaces: dict[str, str]) -> str:
    """`prefix:local` → `{namespace}local` when the prefix is declared; else unchanged."""
    prefix, sep, local = name.partition(":")
    namespace = namespaces.get(prefix) if sep else None
    return "{" + namespace + "}" + local if namespace else name
