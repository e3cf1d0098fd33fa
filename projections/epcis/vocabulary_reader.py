"""Reads vocabulary elements for SimpleMasterDataQuery: the captured master data's tables
(filtered in SQL) and the rows of the collections mapped to vocabularies."""

from collections.abc import Collection, Sequence
from typing import Any

import orjson

from domain.epcis.collection_vocabulary import CollectionVocabulary, FieldTest, RecordLookup
from domain.epcis.master_data import PLACES, VocabularyElement
from domain.epcis.master_data_query import MasterDataQuery
from domain.gs1 import canonical_epc
from infrastructure.database import Database
from infrastructure.sql_conditions import in_list

Accounts = Sequence[str] | None


class VocabularyReader:
    """The master-data read model as SimpleMasterDataQuery sees it; `accounts` (when
    given) limits every read to the master data those accounts captured or own."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def captured(
        self,
        query: MasterDataQuery,
        within: Collection[str] | None,
        accounts: Accounts,
        limit: int | None = None,
    ) -> list[VocabularyElement]:
        """The captured elements that pass the query's filters (WD_name: their key among
        `within`), by vocabulary and key, at most `limit` of them."""
        params: list[Any] = []
        where = ["1 = 1"]
        if query.vocabularies is not None:
            where.append(in_list("e.vocabulary", list(query.vocabularies), params))
        if query.names is not None:
            # Places are keyed by their canonical EPC, other elements as written.
            places = in_list("e.vocabulary", sorted(PLACES), params)
            canonical = in_list("e.element", [canonical_epc(n) for n in query.names], params)
            others = in_list("e.vocabulary", sorted(PLACES), params)
            written = in_list("e.element", list(query.names), params)
            where.append(f"(({places} AND {canonical}) OR (NOT {others} AND {written}))")
        if within is not None:
            where.append(in_list("e.element", sorted(within), params))
        if query.has_attributes is not None:
            where.append(_has_attribute(list(query.has_attributes), None, params))
        for attribute, values in query.attribute_values:
            where.append(_has_attribute([attribute], list(values), params))
        if accounts is not None:
            where.append(in_list("e.account", list(accounts), params))
        sql = (
            "SELECT e.vocabulary, e.id, e.attributes, e.children"
            f" FROM epcis_vocabulary_elements e WHERE {' AND '.join(where)}"
            " ORDER BY e.vocabulary, e.element"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(sql, params)
        return [
            VocabularyElement(
                row[0],
                row[1],
                tuple((name, value) for name, value in orjson.loads(row[2])),
                tuple(orjson.loads(row[3])),
            )
            for row in rows
        ]

    def captured_keys(self, vocabulary: str, keys: Sequence[str], accounts: Accounts) -> set[str]:
        """Which of these element keys the captured master data of `vocabulary` defines."""
        params: list[Any] = [vocabulary]
        where = f"vocabulary = ? AND {in_list('element', list(keys), params)}"
        if accounts is not None:
            where += " AND " + in_list("account", list(accounts), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT element FROM epcis_vocabulary_elements WHERE {where}", params
            )
        return {row[0] for row in rows}

    def captured_children(self, parents: Sequence[str], accounts: Accounts) -> set[str]:
        """The keys of the children the captured elements with these keys list."""
        params: list[Any] = []
        where = in_list("c.parent", list(parents), params)
        if accounts is not None:
            where += " AND " + in_list("e.account", list(accounts), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT c.child FROM epcis_vocabulary_children c"
                " JOIN epcis_vocabulary_elements e"
                " ON e.vocabulary = c.vocabulary AND e.element = c.parent"
                " AND e.account = c.account"
                f" WHERE {where}",
                params,
            )
        return {row[0] for row in rows}

    def collection_rows(
        self,
        mapping: CollectionVocabulary,
        accounts: Accounts,
        lookup: RecordLookup | None = None,
        tests: Sequence[tuple[FieldTest, ...]] = (),
        after: str | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The records of a mapped collection (of these accounts) that `lookup` may name
        and that pass every group of `tests`, by id after `after`, at most `limit`: the
        columns it maps."""
        params: list[Any] = []
        # The account column exists where accounts do: in multi-tenant installations.
        where = [] if accounts is None else [in_list('"account"', list(accounts), params)]
        if lookup is not None:
            named = in_list('"id"', list(lookup.ids), params)
            if lookup.field is not None and lookup.values:
                named += f" OR {in_list(_quoted(lookup.field), list(lookup.values), params)}"
            where.append(f"({named})")
        for group in tests:
            # A group no field can satisfy (no field has the attribute) matches nothing.
            either = " OR ".join(_field_test(test, params) for test in group)
            where.append(f"({either or '1 = 0'})")
        if after is not None:
            where.append('"id" > ?')
            params.append(after)
        sql = (
            f"SELECT {', '.join(_quoted(c) for c in mapping.columns)} FROM {_quoted(mapping.name)}"
            + (f" WHERE {' AND '.join(where)}" if where else "")
            + ' ORDER BY "id"'
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(sql, params)
        return [dict(zip(mapping.columns, row, strict=True)) for row in rows]

    def collection_children(
        self, mapping: CollectionVocabulary, parents: Sequence[str], accounts: Accounts
    ) -> list[tuple[str, dict[str, Any]]]:
        """The records (of these accounts) whose parent field names one of these record
        ids, by id, each with its parent's id: the columns that make its element id."""
        columns = ("id", *mapping.identity)
        params: list[Any] = []
        where = in_list(_quoted(mapping.parent_field), list(parents), params)
        if accounts is not None:
            where += " AND " + in_list('"account"', list(accounts), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT {_quoted(mapping.parent_field)}, {', '.join(_quoted(c) for c in columns)}"
                f' FROM {_quoted(mapping.name)} WHERE {where} ORDER BY "id"',
                params,
            )
        return [(str(row[0]), dict(zip(columns, row[1:], strict=True))) for row in rows]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _field_test(test: FieldTest, params: list[Any]) -> str:
    """SQL for a record's field holding a value (one of the test's values)."""
    column = _quoted(test.field)
    if test.values is not None:
        return in_list(column, list(test.values), params)
    return f"({column} IS NOT NULL AND {column} <> '')" if test.text else f"{column} IS NOT NULL"


def _has_attribute(attributes: list[str], values: list[str] | None, params: list[Any]) -> str:
    """An element having one of these attributes (with one of these text values)."""
    condition = in_list("a.attribute", attributes, params)
    if values is not None:
        condition += " AND " + in_list("a.text_value", values, params)
    return (
        "EXISTS (SELECT 1 FROM epcis_vocabulary_attributes a"
        " WHERE a.vocabulary = e.vocabulary AND a.element = e.element"
        " AND a.account = e.account"
        f" AND {condition})"
    )
