"""The `location`, `organisation` and `product` collections as EPCIS vocabulary elements,
their fields named by CBV master-data attributes (`cbvmda:`) or, where the CBV has no
term, the GS1 Web Vocabulary (`gs1:`). docs/master-data.md lists the mapping."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.epcis.master_data import BUSINESS_LOCATION, VocabularyElement
from domain.gs1 import canonical_epc
from domain.gs1.digital_link import GS1_RESOLVER
from domain.gs1.identifiers import IdentifierError, organisation_path
from domain.masterdata.locations import location_place

CBV_MDA = "urn:epcglobal:cbv:mda#"
GS1_VOC = "https://gs1.org/voc/"
#: CBV 2.0 names parties (owning/possessing parties, sources and destinations) so.
PARTY = "urn:epcglobal:epcis:vtype:Party"
EPC_CLASS = "urn:epcglobal:epcis:vtype:EPCClass"

_ADDRESS = (
    ("address", CBV_MDA + "streetAddressOne"),
    ("city", CBV_MDA + "city"),
    ("state", CBV_MDA + "state"),
    ("postal_code", CBV_MDA + "postalCode"),
    ("country_code", CBV_MDA + "countryCode"),
)


@dataclass(frozen=True)
class CollectionVocabulary:
    """How one collection becomes a vocabulary: its type, the field naming the parent,
    and each mapped field with the attribute it becomes."""

    collection: str
    vocabulary: str
    parent_field: str
    attributes: tuple[tuple[str, str], ...]

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns read to build the elements."""
        identity = {
            "location": ("gln", "gln_extension"),
            "organisation": ("pgln",),
            "product": (),
        }[self.collection]
        return ("id", *identity, self.parent_field, *(field for field, _ in self.attributes))


LOCATIONS = CollectionVocabulary(
    "location",
    BUSINESS_LOCATION,
    "parent_location",
    (
        ("location_name", CBV_MDA + "name"),
        *_ADDRESS,
        ("latitude", CBV_MDA + "latitude"),
        ("longitude", CBV_MDA + "longitude"),
    ),
)
ORGANISATIONS = CollectionVocabulary(
    "organisation",
    PARTY,
    "parent_organisation",
    (("organisation_name", CBV_MDA + "name"), *_ADDRESS),
)
PRODUCTS = CollectionVocabulary(
    "product",
    EPC_CLASS,
    "parent_product",
    (
        ("product_name", GS1_VOC + "productName"),
        ("brand", GS1_VOC + "brandName"),
        ("gtin", GS1_VOC + "gtin"),
        ("functional_name", CBV_MDA + "functionalName"),
        ("country_of_origin", CBV_MDA + "countryOfOrigin"),
    ),
)
COLLECTION_VOCABULARIES = (LOCATIONS, ORGANISATIONS, PRODUCTS)


def element_id(mapping: CollectionVocabulary, row: Mapping[str, Any]) -> str:
    """The id of a record's element: the Digital Link URI of its GS1 key where it has
    one (events name places and classes so), else its record id."""
    key = str(row["id"])
    if mapping is LOCATIONS:
        return location_place(key, row.get("gln"), row.get("gln_extension"))
    if mapping is ORGANISATIONS and row.get("pgln"):
        try:
            return GS1_RESOLVER.rstrip("/") + organisation_path(str(row["pgln"]))
        except IdentifierError:
            pass
    # Product and organisation ids are Digital Link paths (`/01/<GTIN>`) when GS1 keyed.
    return canonical_epc(GS1_RESOLVER.rstrip("/") + key if key.startswith("/") else key)


def collection_elements(
    mapping: CollectionVocabulary, rows: Iterable[Mapping[str, Any]]
) -> list[VocabularyElement]:
    """The elements of a collection's records (columns as `mapping.columns` names them),
    children by the parent field, empty fields left out."""
    records = list(rows)
    ids = {str(row["id"]): element_id(mapping, row) for row in records}
    children: dict[str, list[str]] = {}
    for row in records:
        parent = row.get(mapping.parent_field)
        if parent is not None and str(parent) in ids:
            children.setdefault(str(parent), []).append(ids[str(row["id"])])
    return [
        VocabularyElement(
            mapping.vocabulary,
            ids[str(row["id"])],
            tuple(
                (attribute, row[field])
                for field, attribute in mapping.attributes
                if row.get(field) not in (None, "")
            ),
            tuple(children.get(str(row["id"]), ())),
        )
        for row in records
    ]
