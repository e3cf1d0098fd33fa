"""EPCIS master data sent with events (`epcisHeader.epcisMasterData`), as vocabulary
elements: the hierarchy WD_ parameters follow and the attributes HASATTR_/EQ_ATTR_ test.

Vocabulary types, attribute names and element ids are IRIs; CURIEs among them are
expanded with the document's prefixes. A later capture of an element replaces what an
earlier one said of it (the newest definition wins, as in FasTnT's current master data).
"""

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from domain.epcis.curies import expand_curie
from domain.gs1 import canonical_epc

READ_POINT = "urn:epcglobal:epcis:vtype:ReadPoint"
BUSINESS_LOCATION = "urn:epcglobal:epcis:vtype:BusinessLocation"
#: The vocabularies whose elements are places: their ids are matched as EPCs.
PLACES = frozenset({READ_POINT, BUSINESS_LOCATION})
#: The CBV master-data attributes' prefix, which the EPCIS context binds for every document.
STANDARD_PREFIXES = {"cbvmda": "urn:epcglobal:cbv:mda#"}


def element_key(vocabulary: str, element_id: str) -> str:
    """How events and queries name an element: places by their canonical EPC, others as
    written."""
    return canonical_epc(element_id) if vocabulary in PLACES else element_id


def attribute_name(name: str, namespaces: Mapping[str, str]) -> str:
    """An attribute's IRI: `cbvmda:sst` and `urn:epcglobal:cbv:mda#sst` are one attribute."""
    return expand_curie(name, {**STANDARD_PREFIXES, **namespaces})


@dataclass(frozen=True)
class VocabularyElement:
    """One element of a vocabulary: its attributes (IRI, value) and its children's ids."""

    vocabulary: str
    id: str
    attributes: tuple[tuple[str, Any], ...]
    children: tuple[str, ...]


def vocabulary_elements(
    document: Mapping[str, Any], namespaces: Mapping[str, str]
) -> list[VocabularyElement]:
    """The vocabulary elements a (schema-valid) document's header carries, in order."""
    header = document.get("epcisHeader")
    master = header.get("epcisMasterData") if isinstance(header, Mapping) else None
    vocabularies = master.get("vocabularyList") if isinstance(master, Mapping) else None
    return [
        element
        for vocabulary in _mappings(vocabularies)
        for element in _elements(vocabulary, namespaces)
    ]


def _elements(
    vocabulary: Mapping[str, Any], namespaces: Mapping[str, str]
) -> Iterator[VocabularyElement]:
    kind = expand_curie(str(vocabulary.get("type")), namespaces)
    for element in _mappings(vocabulary.get("vocabularyElementList")):
        attributes = tuple(
            (attribute_name(str(attribute.get("id")), namespaces), attribute.get("attribute"))
            for attribute in _mappings(element.get("attributes"))
        )
        children = tuple(
            expand_curie(child, namespaces)
            for child in element.get("children") or ()
            if isinstance(child, str)
        )
        yield VocabularyElement(
            kind, expand_curie(str(element.get("id")), namespaces), attributes, children
        )


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, Mapping):
            yield item


def attribute_text(value: Any) -> str | None:
    """An attribute's value as the text EQ_ATTR_ compares, None for structures."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return None
