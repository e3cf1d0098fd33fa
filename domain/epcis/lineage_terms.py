"""What an EPCIS event says about lineage: what went into what, and which lot an item is of.

Identifiers are kept in the canonical Digital Link form the query tables use, so every
spelling of an EPC meets the others; beside each, the EPC URN where the event lets one
be told (an EPC written as a URN says where its company prefix ends).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from domain.epcis.index_terms import EventTerms
from domain.gs1 import canonical_epc
from domain.gs1.digital_link import GS1_RESOLVER, SHORT_NAMES, digital_link_key_path
from domain.gs1.epc import gs1_key_path
from domain.gs1.link_to_urn import CompanyPrefixes, epc_urn

CONTAINED_IN = "contained_in"
ASSOCIATED_WITH = "associated_with"
TRANSFORMED_INTO = "transformed_into"
MEMBER_OF = "member_of"

#: The relations a parent holds its children by, and the event type that makes each.
PARENT_RELATIONS = {"AggregationEvent": CONTAINED_IN, "AssociationEvent": ASSOCIATED_WITH}

#: ILMD fields naming the lot of the items an event commissions (CBV 2.0 §8.3: the
#: EPCIS context's `cbvmda:lotNumber`, indexed as written, or a document's own binding of
#: the prefix; and the GS1 Web Vocabulary's term).
LOT_NUMBER_FIELDS = frozenset(
    {
        "cbvmda:lotNumber",
        "urn:epcglobal:cbv:mda:lotNumber",
        "https://gs1.org/voc/lotNumber",
        "gs1:lotNumber",
    }
)


class Link(NamedTuple):
    """A lasting relation one event makes from `source` to `target` (canonical ids), with
    the length of each one's company prefix where the event tells it: `member_of`, for
    a parent's children are its event's EPC rows (see `lineage_terms`)."""

    relation: str
    source: str
    target: str
    source_prefix: int | None
    target_prefix: int | None


class End(NamedTuple):
    """A DELETE ending `relation` from `child` (None: every child) to `parent`."""

    relation: str
    parent: str
    child: str | None


class Transformed(NamedTuple):
    """One input (`side` `input`) or output of a transformation."""

    side: str
    item: str
    prefix: int | None


@dataclass
class LineageTerms:
    """The lineage rows of one event."""

    links: list[Link] = field(default_factory=list)
    ends: list[End] = field(default_factory=list)
    transformed: list[Transformed] = field(default_factory=list)

    def __reduce__(self) -> tuple[type["LineageTerms"], tuple[Any, ...]]:
        # Lineage rows come back from the analysis workers by the thousand: as plain
        # arguments of tuples they unpickle several times faster than dataclasses.
        return (LineageTerms, (self.links, self.ends, self.transformed))


def urn_of(canonical: str, prefixes: CompanyPrefixes) -> str | None:
    """The EPC URN of a canonical identifier, where `prefixes` tell its company prefix."""
    if not canonical.startswith(GS1_RESOLVER):
        return canonical if canonical.startswith("urn:") else None
    return epc_urn(canonical, prefixes)


def is_class(canonical: str) -> bool:
    """Whether a canonical identifier names a class (a GTIN, or a lot of one) rather than
    one instance."""
    path = gs1_key_path(canonical)
    if path is None:
        return canonical.startswith(("urn:epc:class:", "urn:epc:idpat:"))
    parts = path.split("/")
    if parts[0] == "01":
        return len(parts) == 2 or parts[2] == "10"
    if parts[0] in ("8006", "8010"):
        return len(parts) == 2
    return False


def lot_class(uri: str, lot: str | None = None) -> str | None:
    """The canonical LGTIN class of an instance of a GTIN: of `lot`, or else of the lot
    its Digital Link names beside the serial (`/01/…/10/LOT/21/SER`)."""
    path = gs1_key_path(uri)
    if path is None or not path.startswith("01/"):
        return None
    gtin = path.split("/")[1]
    if lot is None:
        lot = _lot_in_link(uri)
        if lot is None:
            return None
    found = digital_link_key_path(f"{GS1_RESOLVER}01/{gtin}/10/{lot}")
    return GS1_RESOLVER + found if found is not None and "/10/" in found else None


def _lot_in_link(uri: str) -> str | None:
    if not uri.startswith(("http://", "https://")):
        return None
    segments = uri.split("?", 1)[0].split("#", 1)[0].split("/")
    for index, segment in enumerate(segments[:-1]):
        if SHORT_NAMES.get(segment, segment) == "10" and index >= 2:
            return segments[index + 1]
    return None


def _texts(values: Any) -> list[str]:
    return [v for v in values or () if isinstance(v, str)]


def _classes(elements: Any) -> list[str]:
    return [
        e["epcClass"]
        for e in elements or ()
        if isinstance(e, Mapping) and isinstance(e.get("epcClass"), str)
    ]


class _Namer:
    """Canonical ids of the identifiers of one event, with the length of each one's
    company prefix where its spelling told it (found with the index terms)."""

    def __init__(self, canonicals: Mapping[str, str], lengths: Mapping[str, int]) -> None:
        self._canonicals = canonicals
        self._lengths = lengths

    def canonical(self, spelling: str) -> str:
        """The canonical id of `spelling`."""
        return self._canonicals.get(spelling) or canonical_epc(spelling)

    def __call__(self, spelling: str) -> tuple[str, int | None]:
        canonical = self.canonical(spelling)
        return canonical, self._lengths.get(canonical)


def _canonicals(event: Mapping[str, Any], indexed: EventTerms) -> dict[str, str]:
    """The canonical form of each EPC and class the event spells, as its index terms
    already hold it (found in worker processes at capture), by role and order."""
    found: dict[str, list[str]] = {}
    for role, canonical in indexed.epcs:
        found.setdefault(role, []).append(canonical)
    for row in indexed.quantities:
        found.setdefault("q" + row[0], []).append(row[1])
    known: dict[str, str] = {}
    parent = event.get("parentID")
    lists: list[tuple[str, list[str]]] = [("parent", [parent] if isinstance(parent, str) else [])]
    lists.extend((role, _texts(event.get(key))) for key, role in _EPC_LISTS)
    lists.extend(("q" + role, _classes(event.get(key))) for key, role in _CLASS_LISTS)
    for role, spelled in lists:
        canonicals = found.get(role, [])
        if len(canonicals) == len(spelled):
            known.update(zip(spelled, canonicals, strict=True))
    return known


_EPC_LISTS = (
    ("epcList", "epc"),
    ("childEPCs", "child"),
    ("inputEPCList", "input"),
    ("outputEPCList", "output"),
)
_CLASS_LISTS = (
    ("quantityList", "quantity"),
    ("childQuantityList", "child"),
    ("inputQuantityList", "input"),
    ("outputQuantityList", "output"),
)


#: Event types that may make lineage rows (ObjectEvents only member_of, from their ILMD
#: or the lots of Digital Links).
LINEAGE_TYPES = frozenset(
    {"ObjectEvent", "AggregationEvent", "AssociationEvent", "TransformationEvent"}
)


def event_lineage(event: Mapping[str, Any], indexed: EventTerms) -> LineageTerms | None:
    """The lineage rows of a captured record, or None when it makes none: an error
    declaration says nothing new of what went where."""
    if "errorDeclaration" in event or event.get("type") not in LINEAGE_TYPES:
        return None
    return lineage_terms(event, indexed)


def lineage_terms(event: Mapping[str, Any], indexed: EventTerms) -> LineageTerms:
    """The lineage rows of a valid EPCIS 2.0 event, given its index terms (whose ILMD lot
    number makes `member_of`, and whose canonical EPCs are reused)."""
    terms = LineageTerms()
    event_type = event.get("type")
    action = event.get("action")
    lots = [
        text
        for scope, key, text, *_ in indexed.fields
        if scope == "ILMD_" and key in LOT_NUMBER_FIELDS
    ]
    links = [e for e in event.get("epcList") or () if isinstance(e, str) and e.startswith("http")]
    if event_type == "ObjectEvent" and not lots and not links:
        # Of an item observed, only a Digital Link naming its lot says anything.
        return terms
    parent = event.get("parentID")
    children = _texts(event.get("childEPCs")) + _classes(event.get("childQuantityList"))
    inputs = _texts(event.get("inputEPCList")) + _classes(event.get("inputQuantityList"))
    outputs = _texts(event.get("outputEPCList")) + _classes(event.get("outputQuantityList"))
    items = _texts(event.get("epcList"))
    spellings = [*children, *inputs, *outputs, *items]
    if isinstance(parent, str):
        spellings.append(parent)
    name = _Namer(_canonicals(event, indexed), indexed.prefix_lengths)
    relation = PARENT_RELATIONS.get(str(event_type))
    # What an ADD or OBSERVE puts into its parent is read from the event's EPC and class
    # rows (their roles `child` and `parent`), not kept a second time; a DELETE's end is.
    if relation is not None and isinstance(parent, str) and action == "DELETE":
        parent_id = name.canonical(parent)
        ended: list[str | None] = [name.canonical(child) for child in children]
        terms.ends.extend(End(relation, parent_id, c) for c in ended or [None])
    if event_type == "TransformationEvent":
        for side, spelled in (("input", inputs), ("output", outputs)):
            for item in spelled:
                item_id, item_prefix = name(item)
                terms.transformed.append(Transformed(side, item_id, item_prefix))
    commissioned = outputs if event_type == "TransformationEvent" else items
    if event_type == "ObjectEvent" and action != "ADD":
        commissioned = []
    lot = lots[0] if lots and isinstance(lots[0], str) else None
    members = dict.fromkeys(commissioned if lot is not None else ())
    # The lot of a Digital Link that names lot and serial, whatever the event.
    members.update((s, None) for s in spellings if s.startswith("http"))
    for item in members:
        canonical = name.canonical(item)
        if is_class(canonical):
            continue
        # A lot from the ILMD needs only the GTIN: the canonical form has it at hand.
        lot_id = (
            lot_class(canonical, lot)
            if lot is not None and item in commissioned
            else lot_class(item)
        )
        if lot_id is None:
            continue
        item_id, item_prefix = name(item)
        # A lot's company prefix is its GTIN's, its items'.
        terms.links.append(Link(MEMBER_OF, item_id, lot_id, item_prefix, item_prefix))
    return terms
