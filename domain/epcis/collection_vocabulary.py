"""The `location`, `organisation` and `product` collections as EPCIS vocabulary elements,
their fields named by CBV master-data attributes (`cbvmda:`) or, where the CBV has no
term, the GS1 Web Vocabulary (`gs1:`). docs/master-data.md lists the mapping.

A SimpleMasterDataQuery's conditions are stated here as conditions on the records
(`RecordLookup`, `FieldTest`), so the database selects the records and only those are read.
"""

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.collections.schema import Collection, FieldType
from domain.epcis.master_data import BUSINESS_LOCATION, READ_POINT, VocabularyElement
from domain.gs1 import canonical_epc
from domain.gs1.digital_link import GS1_RESOLVER
from domain.gs1.epc import gs1_key_path
from domain.gs1.identifiers import IdentifierError, organisation_path
from domain.gs1.link_to_urn import epc_urns
from domain.masterdata.locations import LOCATION, location_place
from domain.masterdata.organisations import ORGANISATION
from domain.masterdata.products import PRODUCT

CBV_MDA = "urn:epcglobal:cbv:mda#"
GS1_VOC = "https://gs1.org/voc/"
#: The vocabulary type of parties (organisations, PGLNs) in EPCIS 2.0 master data, beside
#: `Location`; EPCIS 1.2 knew parties only as `SourceDest` (docs/master-data.md).
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
    each mapped field with the attribute it becomes, the fields the element id is made
    of, and the GS1 key (application identifier, field) its Digital Link id carries."""

    collection: Collection
    vocabulary: str
    parent_field: str
    attributes: tuple[tuple[str, str], ...]
    identity: tuple[str, ...] = ()
    gs1_key: tuple[str, str] | None = None

    @property
    def name(self) -> str:
        """The collection's name (permissions and tables use it)."""
        return self.collection.name

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns read to build the elements."""
        return ("id", *self.identity, self.parent_field, *(f for f, _ in self.attributes))


LOCATIONS = CollectionVocabulary(
    LOCATION,
    BUSINESS_LOCATION,
    "parent_location",
    (
        ("location_name", CBV_MDA + "name"),
        *_ADDRESS,
        ("latitude", CBV_MDA + "latitude"),
        ("longitude", CBV_MDA + "longitude"),
    ),
    identity=("gln", "gln_extension"),
    gs1_key=("414", "gln"),
)
#: A location is also where events are read: the same elements as ReadPoints (the
#: location collection's parents are followed by WD_readPoint as by WD_bizLocation).
READ_POINTS = dataclasses.replace(LOCATIONS, vocabulary=READ_POINT)
ORGANISATIONS = CollectionVocabulary(
    ORGANISATION,
    PARTY,
    "parent_organisation",
    (("organisation_name", CBV_MDA + "name"), *_ADDRESS),
    identity=("pgln",),
    gs1_key=("417", "pgln"),
)
PRODUCTS = CollectionVocabulary(
    PRODUCT,
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
COLLECTION_VOCABULARIES = (LOCATIONS, READ_POINTS, ORGANISATIONS, PRODUCTS)


def element_id(mapping: CollectionVocabulary, row: Mapping[str, Any]) -> str:
    """The id of a record's element: the Digital Link URI of its GS1 key where it has
    one (events name places and classes so), else its record id."""
    key = str(row["id"])
    if mapping.name == LOCATION.name:
        return location_place(key, row.get("gln"), row.get("gln_extension"))
    if mapping.name == ORGANISATION.name and row.get("pgln"):
        try:
            return GS1_RESOLVER.rstrip("/") + organisation_path(str(row["pgln"]))
        except IdentifierError:
            pass
    # Product and organisation ids are Digital Link paths (`/01/<GTIN>`) when GS1 keyed.
    return canonical_epc(GS1_RESOLVER.rstrip("/") + key if key.startswith("/") else key)


def collection_elements(
    mapping: CollectionVocabulary,
    rows: Iterable[Mapping[str, Any]],
    children: Mapping[str, Sequence[str]],
) -> list[VocabularyElement]:
    """The elements of a collection's records (columns as `mapping.columns` names them),
    with the ids of their children by record id, empty fields left out."""
    return [
        VocabularyElement(
            mapping.vocabulary,
            element_id(mapping, row),
            tuple(
                (attribute, row[field])
                for field, attribute in mapping.attributes
                if row.get(field) not in (None, "")
            ),
            tuple(children.get(str(row["id"]), ())),
        )
        for row in rows
    ]


@dataclass(frozen=True)
class RecordLookup:
    """The records that may have an element whose key is among some keys: those whose id
    is one of `ids` (any spelling of the key) or whose GS1 key field holds one of
    `values`. A superset: `element_id` decides."""

    ids: tuple[str, ...]
    field: str | None = None
    values: tuple[str, ...] = ()


def record_lookup(mapping: CollectionVocabulary, keys: Iterable[str]) -> RecordLookup:
    """Where to look for the records whose elements have these keys (`element_key`)."""
    ids: set[str] = set()
    values: set[str] = set()
    for key in keys:
        ids.add(key)
        path = gs1_key_path(key)
        if path is None:
            continue
        # Records keep GS1 keys as Digital Link paths, URIs or EPC URNs.
        ids.update(("/" + path, GS1_RESOLVER + path, *epc_urns(GS1_RESOLVER + path)))
        application, _, rest = path.partition("/")
        if mapping.gs1_key is not None and application == mapping.gs1_key[0]:
            values.add(rest.split("/", 1)[0])
    return RecordLookup(
        tuple(sorted(ids)),
        None if mapping.gs1_key is None else mapping.gs1_key[1],
        tuple(sorted(values)),
    )


@dataclass(frozen=True)
class FieldTest:
    """A record's field holding a value: any (`values` None) or one of `values`, typed as
    the column holds them. Empty text is no value, as in the elements."""

    field: str
    values: tuple[str | int | float, ...] | None
    text: bool


def attribute_tests(
    mapping: CollectionVocabulary,
    has_attributes: Sequence[str] | None,
    attribute_values: Sequence[tuple[str, Sequence[str]]],
) -> list[tuple[FieldTest, ...]]:
    """HASATTR and EQ_ATTR_ as tests on the fields: a record passes when, in every group,
    one of its tests holds (an empty group never holds)."""
    groups: list[tuple[FieldTest, ...]] = []
    if has_attributes is not None:
        groups.append(
            tuple(
                FieldTest(field, None, _is_text(mapping, field))
                for field, attribute in mapping.attributes
                if attribute in has_attributes
            )
        )
    for wanted_attribute, wanted in attribute_values:
        tests = []
        for field, attribute in mapping.attributes:
            if attribute != wanted_attribute:
                continue
            typed = _typed(mapping, field, wanted)
            if typed:
                tests.append(FieldTest(field, typed, _is_text(mapping, field)))
        groups.append(tuple(tests))
    return groups


def _field_type(mapping: CollectionVocabulary, name: str) -> FieldType:
    return next(f.type for f in mapping.collection.fields if f.name == name)


def _is_text(mapping: CollectionVocabulary, field: str) -> bool:
    return _field_type(mapping, field) not in (FieldType.INTEGER, FieldType.FLOAT)


def _typed(
    mapping: CollectionVocabulary, field: str, wanted: Sequence[str]
) -> tuple[str | int | float, ...]:
    """The values the field would hold if its text (`attribute_text`) were one of
    `wanted`: a number matches only the text Python writes for it."""
    kind = _field_type(mapping, field)
    if kind not in (FieldType.INTEGER, FieldType.FLOAT):
        return tuple(w for w in wanted if w != "")
    number = int if kind is FieldType.INTEGER else float
    found: list[str | int | float] = []
    for text in wanted:
        try:
            value = number(text)
        except ValueError:
            continue
        # Stored numbers are finite (fields have bounds); `nan` or `inf` names none.
        if str(value) == text and math.isfinite(value):
            found.append(value)
    return tuple(found)
