"""The REST binding's resources: the top-level list, and the kinds of value events hold
that each name a collection (`/epcs`, `/bizSteps`, …) with a resource per value."""

from bisect import bisect_right

from domain.epcis.cbv import VOCABULARIES, is_standard_value
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

#: The CBV's standard values of `/bizSteps` and `/dispositions`, which list them beside the
#: custom values events hold ("CBV standard values plus custom values supported"), in
#: their indexed form (GS1 Web URIs) and in the index's code-point order.
_STANDARD_MEMBERS = {
    resource: tuple(
        sorted(VOCABULARIES[kind].web_prefix + word for word in VOCABULARIES[kind].words)
    )
    for resource, kind in _CBV_KINDS.items()
}


def standard_members(resource: str, after: str | None = None) -> tuple[str, ...]:
    """The standard values `resource` lists whether or not an event holds them, in their
    indexed form, those after `after` (in code-point order) only when given."""
    values = _STANDARD_MEMBERS.get(resource, ())
    return values if after is None else values[bisect_right(values, after) :]


def is_standard_member(resource: str, value: str) -> bool:
    """Whether `value` (bare word, CBV URN or Web URI) is a standard value `resource`
    always lists: it is a member, with or without events, for every caller."""
    kind = _CBV_KINDS.get(resource)
    return kind is not None and is_standard_value(kind, value)


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
