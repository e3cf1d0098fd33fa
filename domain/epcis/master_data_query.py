"""SimpleMasterDataQuery (EPCIS 1.2 §8.2.7.2, kept by the 2.0 query interface): which
vocabulary elements a master-data named query selects, and how much of each it returns."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.epcis.curies import expand_curie
from domain.epcis.event_query import QueryParameterError
from domain.epcis.master_data import (
    VocabularyElement,
    attribute_name,
    attribute_text,
    element_key,
)
from domain.epcis.outbound import EPCIS_CONTEXT

#: How a named query's `query` object declares its type; absent means SimpleEventQuery.
QUERY_TYPE = "queryType"
EVENT_QUERY = "SimpleEventQuery"
MASTER_DATA_QUERY = "SimpleMasterDataQuery"

_EQ_ATTR = "EQ_ATTR_"
_LISTS = ("vocabularyName", "attributeNames", "EQ_name", "WD_name", "HASATTR")
_FLAGS = ("includeAttributes", "includeChildren")


@dataclass(frozen=True)
class MasterDataQuery:
    """The parameters of a SimpleMasterDataQuery, names expanded to IRIs and element ids
    keyed as the vocabulary tables key them (`element_key`)."""

    include_attributes: bool
    include_children: bool
    vocabularies: tuple[str, ...] | None = None
    attribute_names: tuple[str, ...] | None = None
    names: tuple[str, ...] | None = None
    within_names: tuple[str, ...] | None = None
    has_attributes: tuple[str, ...] | None = None
    attribute_values: tuple[tuple[str, tuple[str, ...]], ...] = ()
    max_element_count: int | None = None


def query_type(params: Mapping[str, Sequence[str]]) -> str:
    """The type a stored query object declares; QueryParameterError for an unknown one."""
    values = params.get(QUERY_TYPE)
    if values is None:
        return EVENT_QUERY
    if len(values) != 1 or values[0] not in (EVENT_QUERY, MASTER_DATA_QUERY):
        raise QueryParameterError(
            f"{QUERY_TYPE} must be one of {EVENT_QUERY!r} or {MASTER_DATA_QUERY!r}"
        )
    return values[0]


def parse_master_data_query(
    params: Mapping[str, Sequence[str]], namespaces: Mapping[str, str] | None = None
) -> MasterDataQuery:
    """The query `params` state (each value a list of strings; `queryType` ignored), CURIEs
    read by `namespaces`. Raises QueryParameterError for a missing, unknown or bad one."""
    bound = dict(namespaces or {})
    values = {k: list(v) for k, v in params.items() if k != QUERY_TYPE}
    for name in values:
        if name not in (*_LISTS, *_FLAGS, "maxElementCount") and not name.startswith(_EQ_ATTR):
            raise QueryParameterError(f"{name} is not a SimpleMasterDataQuery parameter")
        if not values[name]:
            raise QueryParameterError(f"{name} needs a value")
    vocabularies = _iris(values.get("vocabularyName"), bound)
    return MasterDataQuery(
        include_attributes=_flag(values, "includeAttributes"),
        include_children=_flag(values, "includeChildren"),
        vocabularies=vocabularies,
        attribute_names=_attributes(values.get("attributeNames"), bound),
        names=_iris(values.get("EQ_name"), bound),
        within_names=_iris(values.get("WD_name"), bound),
        has_attributes=_attributes(values.get("HASATTR"), bound),
        attribute_values=_attribute_values(values, bound),
        max_element_count=_count(values.get("maxElementCount")),
    )


def _flag(values: Mapping[str, Sequence[str]], name: str) -> bool:
    given = values.get(name)
    if given is None:
        # §8.2.7.2 makes both flags mandatory: a client must say how much it wants.
        raise QueryParameterError(f"{name} is required (true or false)")
    if len(given) != 1 or given[0].lower() not in ("true", "false"):
        raise QueryParameterError(f"{name} must be true or false")
    return given[0].lower() == "true"


def _count(given: Sequence[str] | None) -> int | None:
    if given is None:
        return None
    if len(given) != 1 or not given[0].isdigit() or len(given[0]) > 9:
        raise QueryParameterError("maxElementCount must be one whole number")
    return int(given[0])


def _split(given: Iterable[str]) -> list[str]:
    # Like the event query's parameters, a value may list several separated by `|`.
    return [part for value in given for part in value.split("|") if part]


def _iris(given: Sequence[str] | None, namespaces: Mapping[str, str]) -> tuple[str, ...] | None:
    if given is None:
        return None
    return tuple(expand_curie(value, namespaces) for value in _split(given))


def _attributes(
    given: Sequence[str] | None, namespaces: Mapping[str, str]
) -> tuple[str, ...] | None:
    if given is None:
        return None
    return tuple(attribute_name(value, namespaces) for value in _split(given))


def _attribute_values(
    values: Mapping[str, Sequence[str]], namespaces: Mapping[str, str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found: dict[str, tuple[str, ...]] = {}
    for name, given in values.items():
        if not name.startswith(_EQ_ATTR):
            continue
        written = name[len(_EQ_ATTR) :]
        if not written:
            raise QueryParameterError(f"{name} needs an attribute name after {_EQ_ATTR}")
        attribute = attribute_name(written, namespaces)
        if attribute in found:
            raise QueryParameterError(f"{name} names an attribute already given")
        found[attribute] = tuple(_split(given))
    return tuple(sorted(found.items()))


def selects(query: MasterDataQuery, element: VocabularyElement, within: set[str]) -> bool:
    """Whether the element passes every filter of the query; `within` holds the keys
    WD_name reaches (the named elements and their descendants)."""
    key = element_key(element.vocabulary, element.id)
    if query.vocabularies is not None and element.vocabulary not in query.vocabularies:
        return False
    if query.names is not None and key not in {
        element_key(element.vocabulary, name) for name in query.names
    }:
        return False
    if query.within_names is not None and key not in within:
        return False
    present = {name for name, value in element.attributes if value is not None}
    if query.has_attributes is not None and not present & set(query.has_attributes):
        return False
    texts = {(name, attribute_text(value)) for name, value in element.attributes}
    return all(
        any((attribute, value) in texts for value in wanted)
        for attribute, wanted in query.attribute_values
    )


def vocabulary_list(
    query: MasterDataQuery, elements: Iterable[VocabularyElement]
) -> list[dict[str, Any]]:
    """The `vocabularyList` of the answer: elements grouped by vocabulary type, with the
    attributes and children the query asked for."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for element in elements:
        entry: dict[str, Any] = {"id": element.id}
        if query.include_attributes:
            wanted = query.attribute_names
            entry["attributes"] = [
                {"id": name, "attribute": value}
                for name, value in element.attributes
                if wanted is None or name in wanted
            ]
        if query.include_children and element.children:
            entry["children"] = list(element.children)
        grouped.setdefault(element.vocabulary, []).append(entry)
    return [
        {"type": vocabulary, "vocabularyElementList": entries}
        for vocabulary, entries in grouped.items()
    ]


def vocabulary_document(
    vocabularies: list[dict[str, Any]], created: str, query_name: str
) -> dict[str, Any]:
    """The EPCISQueryDocument answering a master-data query: its `resultsBody` holds the
    `vocabularyList`, and the empty `eventList` GS1's JSON schema requires of every
    results body."""
    return {
        "@context": [EPCIS_CONTEXT],
        "type": "EPCISQueryDocument",
        "schemaVersion": "2.0",
        "creationDate": created,
        "epcisBody": {
            "queryResults": {
                "queryName": query_name,
                "resultsBody": {"eventList": [], "vocabularyList": vocabularies},
            }
        },
    }
