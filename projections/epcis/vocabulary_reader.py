"""Reads vocabulary elements for SimpleMasterDataQuery: the captured master data's tables
(filtered in SQL) and the rows of the collections mapped to vocabularies."""

from collections.abc import Collection, Sequence
from typing import Any

import orjson

from domain.epcis.collection_vocabulary import CollectionVocabulary
from domain.epcis.master_data import PLACES, VocabularyElement
from domain.epcis.master_data_query import MasterDataQuery
from domain.gs1 import canonical_epc
from infrastructure.database import Database, in_list

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
        self, mapping: CollectionVocabulary, accounts: Accounts
    ) -> list[dict[str, Any]]:
        """The records of a mapped collection (of these accounts), the columns it maps."""
        columns = mapping.columns
        params: list[Any] = []
        # The account column exists where accounts do: in multi-tenant installations.
        where = "" if accounts is None else "WHERE " + in_list("account", list(accounts), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT "
                + ", ".join(f'"{c}"' for c in columns)
                + f' FROM "{mapping.collection}" {where} ORDER BY "id"',
                params,
            )
        return [dict(zip(columns, row, strict=True)) for row in rows]


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
