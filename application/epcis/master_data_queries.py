"""Running a SimpleMasterDataQuery over the captured master data and the location,
organisation and product collections; captured master data wins where both define an
element."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from application.blocking import BlockingRunner
from application.epcis.event_queries import QueryTooLarge
from domain.access.policies import Accountability
from domain.epcis.collection_vocabulary import (
    COLLECTION_VOCABULARIES,
    CollectionVocabulary,
    collection_elements,
)
from domain.epcis.master_data import VocabularyElement
from domain.epcis.master_data_query import (
    MasterDataQuery,
    element_key,
    parse_master_data_query,
    selects,
    vocabulary_list,
)
from domain.gs1 import canonical_epc
from projections.epcis.vocabulary_reader import VocabularyReader


@dataclass(frozen=True)
class VocabularyAnswer:
    """The `vocabularyList` a master-data query answers."""

    vocabulary_list: list[dict[str, Any]]


class MasterDataQueryService:
    """The master-data read behind a master-data named query's results."""

    def __init__(self, reader: VocabularyReader, blocking: BlockingRunner) -> None:
        self._reader = reader
        self._blocking = blocking

    async def query(
        self, params: Mapping[str, Sequence[str]], caller: Accountability
    ) -> VocabularyAnswer:
        """The elements `params` select that the caller may read. Raises
        QueryParameterError for a bad parameter, QueryTooLarge past maxElementCount."""
        query = parse_master_data_query(params)
        elements = await self._blocking.run(self._elements, query, caller)
        return VocabularyAnswer(vocabulary_list(query, elements))

    def _elements(self, query: MasterDataQuery, caller: Accountability) -> list[VocabularyElement]:
        accounts = caller.accounts
        sources = {
            mapping: collection_elements(mapping, self._reader.collection_rows(mapping, accounts))
            for mapping in _readable(caller)
            if query.vocabularies is None or mapping.vocabulary in query.vocabularies
        }
        within = self._within(query, sources, accounts)
        limit = query.max_element_count
        captured = self._reader.captured(
            query, within, accounts, None if limit is None else limit + 1
        )
        found = list(captured)
        for mapping, elements in sources.items():
            keys = [element_key(e.vocabulary, e.id) for e in elements]
            defined = self._reader.captured_keys(mapping.vocabulary, keys, accounts)
            found.extend(
                element
                for element, key in zip(elements, keys, strict=True)
                if key not in defined and selects(query, element, within or set())
            )
        if limit is not None and len(found) > limit:
            raise QueryTooLarge(
                f"{len(found)} or more vocabulary elements match, more than the query's "
                f"maxElementCount of {limit}"
            )
        return found

    def _within(
        self,
        query: MasterDataQuery,
        sources: Mapping[CollectionVocabulary, list[VocabularyElement]],
        accounts: Sequence[str] | None,
    ) -> set[str] | None:
        """The keys WD_name reaches: the named elements and, through the children of
        both sources, every element below them."""
        if query.within_names is None:
            return None
        below_collections: dict[str, set[str]] = {}
        for elements in sources.values():
            for element in elements:
                key = element_key(element.vocabulary, element.id)
                below_collections.setdefault(key, set()).update(element.children)
        roots = {n for name in query.within_names for n in (name, canonical_epc(name))}
        found = set(roots)
        frontier = set(roots)
        # Each source may lead into the other: follow both until nothing new turns up.
        while frontier:
            below = self._reader.captured_children(sorted(frontier), accounts)
            for key in frontier:
                below |= below_collections.get(key, set())
            frontier = below - found
            found |= below
        return found


def _readable(caller: Accountability) -> list[CollectionVocabulary]:
    """The mapped collections the caller may read whole: a rule limiting which records it
    reads is not applied here, so such a collection is left out rather than leaked."""
    readable = []
    for mapping in COLLECTION_VOCABULARIES:
        access = None if caller.admin else caller.access(mapping.collection, "read")
        if caller.admin or (access is not None and access.rule is None):
            readable.append(mapping)
    return readable
