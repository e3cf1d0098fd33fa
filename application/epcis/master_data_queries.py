"""Running a SimpleMasterDataQuery over the captured master data and the location,
organisation and product collections; captured master data wins where both define an
element."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from application.epcis.event_queries import QueryTooLarge
from application.service.blocking import BlockingRunner
from domain.access.policies import Accountability
from domain.epcis.collection_vocabulary import (
    COLLECTION_VOCABULARIES,
    CollectionVocabulary,
    attribute_tests,
    collection_elements,
    element_id,
    record_lookup,
)
from domain.epcis.master_data import VocabularyElement, element_key
from domain.epcis.master_data_query import (
    MasterDataQuery,
    parse_master_data_query,
    selects,
    vocabulary_list,
)
from domain.gs1 import canonical_epc
from infrastructure.sql_conditions import chunks
from projections.epcis.vocabulary_reader import VocabularyReader

#: Records read (and looked up among the captured master data) per statement.
_BATCH = 1000
#: The most ids and GS1 keys one statement looks records up by (drivers take some 30,000
#: parameters; each key has up to ten spellings).
_MOST_NAMED = 10_000


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
        mappings = [
            mapping
            for mapping in _readable(caller)
            if query.vocabularies is None or mapping.vocabulary in query.vocabularies
        ]
        within = self._within(query, mappings, accounts)
        limit = query.max_element_count
        found = self._captured(query, within, accounts, None if limit is None else limit + 1)
        for mapping in mappings:
            room = None if limit is None else limit + 1 - len(found)
            found.extend(self._from_collection(query, mapping, within, accounts, room))
        if limit is not None and len(found) > limit:
            raise QueryTooLarge(
                f"{len(found)} or more vocabulary elements match, more than the query's "
                f"maxElementCount of {limit}"
            )
        return found

    def _from_collection(
        self,
        query: MasterDataQuery,
        mapping: CollectionVocabulary,
        within: set[str] | None,
        accounts: Sequence[str] | None,
        room: int | None,
    ) -> list[VocabularyElement]:
        """The elements of a collection the query selects and the captured master data
        does not define, at most `room` of them (all when None). The database selects
        the records by the query's conditions; `selects` has the last word."""
        keys = _wanted_keys(query, mapping, within)
        tests = attribute_tests(mapping, query.has_attributes, query.attribute_values)
        # No key left, or an attribute none of the collection's fields maps: nothing to read.
        if (keys is not None and not keys) or not all(tests) or room == 0:
            return []
        lookup = None if keys is None else record_lookup(mapping, keys)
        if lookup is not None and len(lookup.ids) + len(lookup.values) > _MOST_NAMED:
            # So many names (a large WD_name tree) no statement can list them: read the
            # records the other conditions select, and let `selects` pick.
            lookup = None
        rows: list[dict[str, Any]] = []
        elements: list[VocabularyElement] = []
        after = None
        # In batches, so that no statement names more records than a driver takes.
        size = _BATCH if room is None else min(room, _BATCH)
        while room is None or len(elements) < room:
            # Records the captured master data defines are left out: read on past them.
            batch = self._reader.collection_rows(mapping, accounts, lookup, tests, after, size)
            candidates = collection_elements(mapping, batch, {})
            keyed = [element_key(e.vocabulary, e.id) for e in candidates]
            defined = self._reader.captured_keys(mapping.vocabulary, keyed, accounts)
            for row, element, key in zip(batch, candidates, keyed, strict=True):
                if key not in defined and selects(query, element, within or set()):
                    rows.append(row)
                    elements.append(element)
            if len(batch) < size:
                break
            after = str(batch[-1]["id"])
        rows = rows if room is None else rows[:room]
        children: dict[str, list[str]] = {}
        for part in chunks(rows, _BATCH) if query.include_children else ():
            parents = [str(row["id"]) for row in part]
            for parent, child in self._reader.collection_children(mapping, parents, accounts):
                children.setdefault(parent, []).append(element_id(mapping, child))
        return collection_elements(mapping, rows, children)

    def _captured(
        self,
        query: MasterDataQuery,
        within: set[str] | None,
        accounts: Sequence[str] | None,
        limit: int | None,
    ) -> list[VocabularyElement]:
        """The captured elements the query selects, in order; a large WD_name tree in
        batches, so that no statement names more keys than a driver takes."""
        if within is None or len(within) <= _BATCH:
            return self._reader.captured(query, within, accounts, limit)
        found = [
            element
            for part in chunks(sorted(within), _BATCH)
            for element in self._reader.captured(query, set(part), accounts, limit)
        ]
        # Each batch is in (vocabulary, key) order, and its first `limit` are enough.
        found.sort(key=lambda e: (e.vocabulary, element_key(e.vocabulary, e.id)))
        return found if limit is None else found[:limit]

    def _within(
        self,
        query: MasterDataQuery,
        mappings: Sequence[CollectionVocabulary],
        accounts: Sequence[str] | None,
    ) -> set[str] | None:
        """The keys WD_name reaches: the named elements and, through the children of
        both sources, every element below them."""
        if query.within_names is None:
            return None
        roots = {n for name in query.within_names for n in (name, canonical_epc(name))}
        found = set(roots)
        frontier = set(roots)
        # Each source may lead into the other: follow both until nothing new turns up.
        while frontier:
            below: set[str] = set()
            for part in chunks(sorted(frontier), _BATCH):
                below |= self._reader.captured_children(part, accounts)
                # One collection may be two vocabularies (locations): its records once.
                for mapping in {m.name: m for m in mappings}.values():
                    below |= self._collection_children(mapping, set(part), accounts)
            frontier = below - found
            found |= below
        return found

    def _collection_children(
        self, mapping: CollectionVocabulary, keys: set[str], accounts: Sequence[str] | None
    ) -> set[str]:
        """The element ids of the children of the collection's elements with these keys."""
        rows = self._reader.collection_rows(mapping, accounts, record_lookup(mapping, keys))
        parents = [
            str(row["id"])
            for row in rows
            if element_key(mapping.vocabulary, element_id(mapping, row)) in keys
        ]
        if not parents:
            return set()
        return {
            element_id(mapping, child)
            for _, child in self._reader.collection_children(mapping, parents, accounts)
        }


def _wanted_keys(
    query: MasterDataQuery, mapping: CollectionVocabulary, within: set[str] | None
) -> set[str] | None:
    """The keys EQ_name and WD_name leave the collection's elements (None: any)."""
    keys = None
    if query.names is not None:
        keys = {element_key(mapping.vocabulary, name) for name in query.names}
    if within is not None:
        keys = set(within) if keys is None else keys & within
    return keys


def _readable(caller: Accountability) -> list[CollectionVocabulary]:
    """The mapped collections the caller may read whole: a rule limiting which records it
    reads is not applied here, so such a collection is left out rather than leaked."""
    readable = []
    for mapping in COLLECTION_VOCABULARIES:
        access = None if caller.admin else caller.access(mapping.name, "read")
        if caller.admin or (access is not None and access.rule is None):
            readable.append(mapping)
    return readable
