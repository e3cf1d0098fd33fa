"""`search` and substring conditions as SQL, using the search indexes where they help."""

import math
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from domain.collections.coercion import parse_number
from domain.collections.schema import Collection, Field, FieldType
from domain.collections.selection import is_concealed
from infrastructure.connection import Connection
from projections.items.sql import Sql, escape_like
from projections.search_index import (
    SEPARATOR,
    fts_columns,
    search_column,
    search_fields,
    search_table,
)

# PostgreSQL's trigram index answers a LIKE pattern from the trigrams of its words; a
# term without three letters or digits in a row has none worth looking up.
_TRIGRAM_TERM = re.compile(r"[^\W_]{3}")
_FTS_MIN_LENGTH = 3
# The least number of rows holding a term from which walking the table or an index in
# sort order beats reading them from the search index (see `TextIndex._rare`).
_FEW_MATCHES = 1000


class TextIndex:
    """Case-insensitive substring conditions answered from the search indexes of
    `projections.search_index`, within the transaction of `conn`. `has_index` tells
    whether a collection's table has its search index (tables built by projections
    other than the records projection may not).

    `window` (limit plus offset) is given for a list read in an order that an index
    serves (the default sort): there, a term that many rows hold is found fastest by
    reading rows in that order until the page is full, and a rare one from the search
    index. Which it is, the index itself is asked (a count that stops at a bound),
    since neither planner can know: SQLite keeps no statistics, and PostgreSQL's
    estimates of substring patterns are rough.
    """

    def __init__(
        self,
        conn: Connection,
        has_index: Callable[[Collection], bool],
        *,
        window: int | None = None,
    ) -> None:
        self._conn = conn
        self._dialect = conn.dialect
        self._has_index = has_index
        self._window = window
        self._custom_plans = False
        self._index_scans = True

    def hint(
        self,
        collection: Collection,
        alias: str,
        fields: Sequence[Field],
        term: str,
        *,
        few: bool = False,
    ) -> tuple[Sql, bool] | None:
        """A condition, answered from the index, that holds on every row of `collection`
        (aliased `alias`) where one of the search fields `fields` holds `term` as a
        case-insensitive substring, and whether it holds on those rows only or on more
        (then the exact condition must be ANDed: on PostgreSQL, unless `fields` are all
        the search fields). None where the index does not help: a short term, no index,
        or (SQLite) a common term in a list read in index order.

        `few`: only where few rows hold the term, for conditions cheap to check on every
        row (`_eq`); otherwise a planner taking the index's condition and the exact one
        as independent would think too few rows pass both.
        """
        if not fields or not self._has_index(collection):
            return None
        if self._dialect.name == "postgresql":
            if _TRIGRAM_TERM.search(term) is None:
                return None
            if not self._custom_plans:
                # How to find the rows depends on the term: a plan made once for every
                # term (the driver prepares statements it sees often) is slow for some.
                self._conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
                self._custom_plans = True
            pattern = [f"%{escape_like(term)}%"]
            if few or self._window is not None:
                rare = self._rare(collection, pattern, few)
                if few and not rare:
                    return None
                if rare and self._window is not None and self._index_scans:
                    # Read from the index: a walk in sort order would read most rows.
                    self._conn.execute("SET LOCAL enable_indexscan = off")
                    self._index_scans = False
            exact = SEPARATOR not in term and tuple(fields) == search_fields(collection)
            return (_document_like(collection, alias), pattern), exact
        if len(term) < _FTS_MIN_LENGTH:
            return None
        index = search_table(collection)
        # The term, lowered as the index holds its values, as a phrase of those columns.
        matches = (
            f'SELECT rowid FROM "{index}" WHERE "{index}" MATCH'
            """ (? || '"' || REPLACE(LOWER(?), '"', '""') || '"')"""
        )
        params: list[Any] = [fts_columns(fields), term]
        if (few or self._window is not None) and not self._rare(collection, params, few):
            return None
        return (f"{alias}.rowid IN ({matches})", params), True

    def _rare(self, collection: Collection, params: list[Any], few: bool) -> bool:
        """Whether fewer rows hold the term than make reading them from the index worth
        it: with `few`, 1000; else about the square root of (rows in the table times the
        window), at least 1000. `params` are those of the index's condition."""
        table = f'"{collection.table}"'
        bound = _FEW_MATCHES
        if not few:
            if self._dialect.name == "postgresql":
                rows = self._conn.fetchval(
                    "SELECT reltuples FROM pg_class WHERE oid = to_regclass(?)", (table,)
                )
            else:
                rows = self._conn.fetchval(f"SELECT MAX(rowid) FROM {table}")
            window = self._window or 0
            bound = max(bound, math.isqrt(int(max(rows or 0, 0)) * window))
        if self._dialect.name == "sqlite":
            index = search_table(collection)
            count = (
                f'SELECT COUNT(*) FROM (SELECT 1 FROM "{index}" WHERE "{index}" MATCH'
                """ (? || '"' || REPLACE(LOWER(?), '"', '""') || '"') LIMIT ?) AS m"""
            )
            return int(self._conn.fetchval(count, [*params, bound])) < bound
        # Counted from the index (a bitmap scan), never by reading the table.
        self._conn.execute("SET LOCAL enable_seqscan = off")
        self._conn.execute("SET LOCAL enable_indexscan = off")
        try:
            found = self._conn.fetchval(
                f"SELECT COUNT(*) FROM (SELECT 1 FROM {table} AS p"
                f" WHERE {_document_like(collection, 'p')} LIMIT ?) AS m",
                [*params, bound],
            )
        finally:
            self._conn.execute("SET LOCAL enable_seqscan = on")
            scans = "on" if self._index_scans else "off"
            self._conn.execute(f"SET LOCAL enable_indexscan = {scans}")
        return int(found) < bound


def _document_like(collection: Collection, alias: str) -> str:
    """PostgreSQL: the search document of the table aliased `alias` holds a pattern."""
    return f"{alias}.\"{search_column(collection)}\" LIKE LOWER(?) ESCAPE '\\'"


def compile_search(
    term: str,
    collection: Collection,
    *,
    alias: str = "t",
    fields: frozenset[str] | None = None,
    text_index: TextIndex | None = None,
) -> Sql:
    """A WHERE fragment for `search`: case-insensitive substring of string and text fields,
    equality on number fields when `term` is a number and on UUID fields when it is a
    UUID. `fields` limits it to those readable ("*": all); concealed fields never match.
    With `text_index`, the substring part uses the search index where it helps.
    """
    number, key = parse_number(term), _search_uuid(term)
    clauses: list[str] = []
    params: list[Any] = []
    readable = [
        field
        for field in collection.fields
        if not is_concealed(field) and (fields is None or "*" in fields or field.name in fields)
    ]
    texts = [field for field in search_fields(collection) if field in readable]
    hint = None if text_index is None else text_index.hint(collection, alias, texts, term)
    if hint is not None and hint[1]:
        clauses.append(hint[0][0])
        params += hint[0][1]
    elif texts:
        likes = [f"LOWER({alias}.\"{f.name}\") LIKE LOWER(?) ESCAPE '\\'" for f in texts]
        like_params = [f"%{escape_like(term)}%"] * len(texts)
        if hint is None:
            clauses += likes
            params += like_params
        else:
            clauses.append(f"({hint[0][0]} AND ({' OR '.join(likes)}))")
            params += [*hint[0][1], *like_params]
    for field in readable:
        column = f'{alias}."{field.name}"'
        if field.type in (FieldType.INTEGER, FieldType.FLOAT) and number is not None:
            clauses.append(f"{column} = ?")
            params.append(number)
        elif field.type is FieldType.UUID and key is not None:
            clauses.append(f"{column} = ?")
            params.append(key)
    if not clauses:
        return "1 = 0", []
    return "(" + " OR ".join(clauses) + ")", params


def _search_uuid(term: str) -> str | None:
    try:
        return str(uuid.UUID(term.strip()))
    except ValueError:
        return None
