"""The REST binding's resources: the top-level list, and the kinds of value events hold
that each name a collection (`/epcs`, `/bizSteps`, …) with a resource per value."""

from domain.epcis.fields import EVENT_TYPES
from domain.epcis.xml_fields import bare_word

#: What `GET /v2/epcis` lists (openapi.yaml's `TopLevelResource` values).
TOP_LEVEL_RESOURCES = (
    "queries",
    "capture",
    "events",
    "eventTypes",
    "epcs",
    "readPoints",
    "bizLocations",
    "dispositions",
    "bizSteps",
)

#: Each value collection, and the query parameter that selects the events of one value.
VALUE_PARAMETERS = {
    "eventTypes": "eventType",
    "epcs": "MATCH_anyEPC",
    "bizSteps": "EQ_bizStep",
    "bizLocations": "EQ_bizLocation",
    "readPoints": "EQ_readPoint",
    "dispositions": "EQ_disposition",
}

#: Collections whose members are EPCs or location ids: `GS1-EPC-Format` applies to them.
EPC_VALUED = frozenset({"epcs", "bizLocations", "readPoints"})

_CBV_KINDS = {"bizSteps": "bizStep", "dispositions": "disposition"}


def member(resource: str, indexed: str) -> str:
    """A value as its collection lists it: standard CBV values as bare words (as the
    JSON binding writes them), all others as indexed (IRIs, canonical EPCs)."""
    kind = _CBV_KINDS.get(resource)
    return bare_word(kind, indexed) if kind is not None else indexed


def may_name(resource: str, value: str) -> bool:
    """Whether `value` can name a member of `resource` at all: not an EPC pattern under
    `/epcs`, a standard event type or a URI under `/eventTypes`."""
    if resource == "epcs":
        return not (value.startswith("urn:epc:idpat:") or value.endswith("*"))
    if resource == "eventTypes":
        return value in EVENT_TYPES or ":" in value
    return True
