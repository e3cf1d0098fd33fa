"""Directus-style item queries as SQL over the platform collections' read-model tables.

One compiler serves every collection and both backends: filters, search and sort become
WHERE and ORDER BY fragments with `?` placeholders, and the only backend difference (how
a case-sensitive pattern is matched) goes through `infrastructure.database`'s seam.

Null semantics are SQL's, as in Directus (knex): a negative operator (`_neq`, `_nin`,
`_ncontains`, `_nbetween`, ...) does not match rows whose value is NULL. A path through a
many-to-one relation behaves like Directus's left join: a missing related item counts as
a related item whose fields are all NULL. Case-insensitive operators and search compare
`LOWER` of both sides, which on SQLite folds ASCII letters only.

Item rules: a related item that fails its collection's rule does not exist for the
caller, wherever a relation is crossed (nested fields, filters, sort): it reads as null
(many-to-one) or is left out (to-many), a filter sees it as missing, a sort as NULL.
A rule itself is applied as written, without the rules of the collections it reaches.

Integers beyond the signed 64-bit range can never be stored: a key beyond it matches
nothing, and a filter value beyond the safe integers (±2^53-1) is a QueryError.

`search` and the case-insensitive substring filters (`_icontains`, `_istarts_with`,
`_iends_with`) go through the tables' search indexes (`projections.search_index`) where
there is one and the term is long enough, with the same answers as without.
"""

import itertools
import math
import re
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from enum import Enum
from typing import Any

import orjson

from domain.collections.coercion import check_text, coerce_value, parse_number
from domain.collections.filters import And, Condition, Filter, Or, Related
from domain.collections.item_query import Aggregate, ItemQuery
from domain.collections.operators import ARRAY_OPERATORS, STRING_MATCHES
from domain.collections.paths import readable
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema
from domain.collections.selection import CONCEALED, Selection, is_concealed, select
from domain.collections.validation import validate
from domain.collections.variables import is_variable
from infrastructure.database import Connection, Database, Dialect, chunks, glob_condition
from projections.search_index import (
    SEPARATOR,
    fts_columns,
    has_search_index,
    indexed_fields,
    search_column,
    search_fields,
    search_table,
)

Items = list[dict[str, Any]]
Keys = list[Any]
AllowedFields = Mapping[str, frozenset[str]]
Rules = Mapping[str, Filter]
_Sql = tuple[str, list[Any]]

# SQLite takes an OFFSET only after a LIMIT; this one never cuts anything off.
_NO_LIMIT = 2**63 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
# A key given as integer text is read exactly (`parse_number` stops at safe integers).
_INTEGER_KEY = re.compile(r"\s*[+-]?[0-9]{1,40}\s*")
_KEYS_PER_STATEMENT = 500
_SYMBOLS = {"_eq": "=", "_neq": "<>", "_lt": "<", "_lte": "<=", "_gt": ">", "_gte": ">="}
# These hold on NULL, so a missing related item must satisfy them too.
_TRUE_ON_NULL = frozenset({"_null", "_empty"})
_TEXT_TYPES = frozenset({FieldType.STRING, FieldType.TEXT, FieldType.UUID, FieldType.HASH})
# PostgreSQL's trigram index answers a LIKE pattern from the trigrams of its words; a
# term without three letters or digits in a row has none worth looking up.
_TRIGRAM_TERM = re.compile(r"[^\W_]{3}")
_FTS_MIN_LENGTH = 3
# The least number of rows holding a term from which walking the table or an index in
# sort order beats reading them from the search index (see `TextIndex._rare`).
_FEW_MATCHES = 1000
_AGGREGATE_SQL = {
    "count": "COUNT({})",
    "countDistinct": "COUNT(DISTINCT {})",
    "countAll": "COUNT(*)",
    "sum": "SUM({})",
    "sumDistinct": "SUM(DISTINCT {})",
    "avg": "AVG({})",
    "avgDistinct": "AVG(DISTINCT {})",
    "min": "MIN({})",
    "max": "MAX({})",
}


class _Wildcard(Enum):
    """The wildcard `glob_condition` expects (it reads the member's name)."""

    ANY = "ANY"


def _required(link: Alias, alias: str) -> str:
    """SQL keeping the related rows (aliased `alias`) that belong to this relation."""
    return f' AND {alias}."{link.requires}" IS NOT NULL' if link.requires else ""


def compile_filter(
    filter: Filter, collection: Collection, schema: Schema, dialect: Dialect, alias: str = "t"
) -> _Sql:
    """A WHERE fragment for a validated filter on `collection`'s table aliased `alias`,
    with no item rules on the related items it reaches (for rules and internal lookups;
    `ItemReader` compiles callers' filters with their related rules).

    Many-to-one paths become `"role" IN (SELECT ...)`, to-many conditions EXISTS (`_some`)
    or NOT EXISTS (`_none`) on the related table's foreign key.
    """
    rules = _RuleBook(schema, dialect, {})
    return _FilterCompiler(schema, dialect, alias, rules).compile(filter, collection, alias)


class _RuleBook:
    """The item rules of the collections a query reaches, validated once, compiled where
    a relation is crossed."""

    def __init__(
        self, schema: Schema, dialect: Dialect, rules: Rules, fallback: Rules | None = None
    ) -> None:
        self._schema = schema
        self._dialect = dialect
        # Looked up, never copied: the caller may work a rule out only when it is reached.
        self._rules = rules
        self._fallback = fallback or {}
        self._checked: dict[str, Filter] = {}

    def condition(self, collection: Collection, alias: str) -> _Sql | None:
        """The rule of `collection` on its table aliased `alias`, None when it has none."""
        rule = self._rules.get(collection.name)
        if rule is None:
            rule = self._fallback.get(collection.name)
        if rule is None:
            return None
        checked = self._checked.get(collection.name)
        if checked is None:
            checked = validate(rule, collection, self._schema, purpose="permission")
            self._checked[collection.name] = checked
        # A rule is applied as written: the rules of what it reaches do not apply to it.
        return compile_filter(checked, collection, self._schema, self._dialect, alias)


def _and_rule(sql: str, params: list[Any], rule: _Sql | None) -> _Sql:
    """`sql AND rule` (parameters in that order), or `sql` alone without a rule."""
    if rule is None:
        return sql, params
    return f"{sql} AND {rule[0]}", [*params, *rule[1]]


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
    ) -> tuple[_Sql, bool] | None:
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
            pattern = [f"%{_escape_like(term)}%"]
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
) -> _Sql:
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
        like_params = [f"%{_escape_like(term)}%"] * len(texts)
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


class _FilterCompiler:
    """Compiles one filter; numbers the aliases of its subqueries."""

    def __init__(
        self,
        schema: Schema,
        dialect: Dialect,
        alias: str,
        rules: _RuleBook,
        text_index: TextIndex | None = None,
    ) -> None:
        self._schema = schema
        self._dialect = dialect
        self._prefix = alias
        self._rules = rules
        self._text_index = text_index
        self._count = itertools.count(1)

    def compile(self, node: Filter, collection: Collection, alias: str) -> _Sql:
        match node:
            case And(items):
                return self._group(items, " AND ", "1 = 1", collection, alias)
            case Or(items):
                return self._group(items, " OR ", "1 = 0", collection, alias)
            case Condition():
                return self._condition(node, collection, alias)
            case Related():
                return self._related(node, collection, alias)

    def _group(
        self, items: tuple[Filter, ...], joint: str, empty: str, collection: Collection, alias: str
    ) -> _Sql:
        if not items:
            return empty, []
        parts = [self.compile(item, collection, alias) for item in items]
        return "(" + joint.join(sql for sql, _ in parts) + ")", [p for _, ps in parts for p in ps]

    def _condition(self, condition: Condition, collection: Collection, alias: str) -> _Sql:
        if len(condition.path) > 1:
            rest = replace(condition, path=condition.path[1:])
            true_on_null = condition.operator in _TRUE_ON_NULL
            return self._many_to_one(collection, condition.path[0], alias, rest, true_on_null)
        field = _field(collection, condition.path[0])
        column = f'{alias}."{field.name}"'
        sql, params = self._operator(column, field, condition.operator, condition.value)
        hint = self._hint(collection, alias, field, condition.operator, condition.value)
        if hint is None:
            return sql, params
        (hint_sql, hint_params), exact = hint
        if exact and condition.operator == "_icontains":
            return hint_sql, hint_params
        return f"({hint_sql} AND {sql})", [*hint_params, *params]

    def _hint(
        self, collection: Collection, alias: str, field: Field, op: str, value: Any
    ) -> tuple[_Sql, bool] | None:
        """The search index's condition for a field condition that implies the field holds
        `value` ignoring case: positive case-insensitive matches, and `_eq` on a field
        without a b-tree index of its own (a value is a substring of itself)."""
        spec = STRING_MATCHES.get(op)
        if spec is not None:
            if not spec.insensitive or spec.negated:
                return None
        elif op != "_eq" or field.name in indexed_fields(collection):
            return None
        if self._text_index is None or not isinstance(value, str):
            return None
        if field not in search_fields(collection):
            return None
        return self._text_index.hint(collection, alias, [field], value, few=op == "_eq")

    def _related(self, related: Related, collection: Collection, alias: str) -> _Sql:
        if len(related.path) > 1:
            rest = replace(related, path=related.path[1:])
            true_on_null = related.quantifier == "_none"
            return self._many_to_one(collection, related.path[0], alias, rest, true_on_null)
        link = collection.alias(related.path[0])
        if link is None:
            raise FieldForbidden(related.path[0], collection.name)
        target = self._schema[link.collection]
        sub = self._alias()
        # `_none`: none of the related items the caller may see matches.
        where, params = _and_rule(
            f'{sub}."{link.foreign_key}" = {alias}."{collection.primary_key}"'
            + _required(link, sub),
            [],
            self._rules.condition(target, sub),
        )
        inner, inner_params = self.compile(related.filter, target, sub)
        exists = f'EXISTS (SELECT 1 FROM "{target.table}" AS {sub} WHERE {where} AND {inner})'
        sql = "NOT " + exists if related.quantifier == "_none" else exists
        return sql, [*params, *inner_params]

    def _many_to_one(
        self, collection: Collection, name: str, alias: str, rest: Filter, true_on_null: bool
    ) -> _Sql:
        field = _field(collection, name)
        if field.relation is None:
            raise QueryError(f'"{name}" in collection "{collection.name}" is not a relation.')
        target = self._schema[field.relation]
        sub = self._alias()
        rule = self._rules.condition(target, sub)
        inner, params = self.compile(rest, target, sub)
        key = f'{sub}."{target.primary_key}"'
        if true_on_null:
            # Holds unless a visible related item exists that fails it: a NULL key, a
            # dangling one or a hidden item counts as a related item of NULLs, which
            # satisfies the condition.
            where, rule_params = _and_rule(f'{key} = {alias}."{name}"', [], rule)
            return (
                f'NOT EXISTS (SELECT 1 FROM "{target.table}" AS {sub} WHERE {where}'
                f" AND NOT ({inner}))"
            ), [*rule_params, *params]
        where, params = _and_rule(inner, params, rule)
        return (
            f'{alias}."{name}" IN (SELECT {key} FROM "{target.table}" AS {sub} WHERE {where})',
            params,
        )

    def _operator(self, column: str, field: Field, op: str, value: Any) -> _Sql:
        textual = field.type in _TEXT_TYPES
        match op:
            case "_null":
                return f"{column} IS NULL", []
            case "_nnull":
                return f"{column} IS NOT NULL", []
            case "_empty":
                return (
                    f"({column} IS NULL OR {column} = '')" if textual else f"{column} IS NULL"
                ), []
            case "_nempty":
                sql = f"({column} IS NOT NULL AND {column} <> '')"
                return (sql if textual else f"{column} IS NOT NULL"), []
            case "_in" | "_nin":
                return _membership(column, op, value)
            case "_between" | "_nbetween":
                keyword = "BETWEEN" if op == "_between" else "NOT BETWEEN"
                return f"{column} {keyword} ? AND ?", [_param(v) for v in value]
        if op in _SYMBOLS:
            return f"{column} {_SYMBOLS[op]} ?", [_param(value)]
        if field.array and op in ARRAY_OPERATORS:
            # A list of strings is held as its JSON text: an element is its quoted form.
            return self._pattern(column, op, orjson.dumps(str(value)).decode())
        if op in STRING_MATCHES:
            return self._pattern(column, op, value)
        raise QueryError(f'The "{op}" filter operator cannot be used in a query.')

    def _pattern(self, column: str, op: str, value: str) -> _Sql:
        spec = STRING_MATCHES[op]
        if spec.insensitive:
            text = (
                ("" if spec.at_start else "%") + _escape_like(value) + ("" if spec.at_end else "%")
            )
            sql = f"LOWER({column}) LIKE LOWER(?) ESCAPE '\\'"
        else:
            # LIKE ignores case on SQLite, so case-sensitive matching goes through the
            # database module's pattern seam (GLOB there, LIKE on PostgreSQL).
            glob = [*([] if spec.at_start else [_Wildcard.ANY]), value]
            glob += [] if spec.at_end else [_Wildcard.ANY]
            sql, text = glob_condition(self._dialect, column, glob)
        return (f"NOT ({sql})" if spec.negated else sql), [text]

    def _alias(self) -> str:
        return f"{self._prefix}_{next(self._count)}"


def _membership(column: str, op: str, values: Sequence[Any]) -> _Sql:
    if not values:
        # Knex's answer for an empty list, which only permission rules can hold.
        return ("1 = 0" if op == "_in" else "1 = 1"), []
    marks = ", ".join("?" * len(values))
    keyword = "IN" if op == "_in" else "NOT IN"
    return f"{column} {keyword} ({marks})", [_param(v) for v in values]


def _param(value: Any) -> Any:
    """A validated value as a statement parameter (booleans are stored as 0/1)."""
    if is_variable(value):
        raise QueryError(f'The dynamic variable "{value}" was not resolved.')
    return int(value) if isinstance(value, bool) else value


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _search_uuid(term: str) -> str | None:
    try:
        return str(uuid.UUID(term.strip()))
    except ValueError:
        return None


def _field(collection: Collection, name: str) -> Field:
    field = collection.field(name)
    if field is None:
        raise FieldForbidden(name, collection.name)
    return field


class ItemReader:
    """Reads platform collections the Directus way: filter, search, sort, page, fields.

    Synchronous; callers run it in a worker thread. The caller's permissions come as:

    - `restrict`: the item rule of the collection read (None: every item);
    - `restrict_related`: collection name -> item rule, for every collection the caller
      may read that has a rule (a collection absent from it: every item). It applies
      wherever a relation is crossed into that collection — nested fields, filters
      (`meta` counts included) and sort — so it must hold the rule of EVERY readable
      collection that has one, the read collection's own included (relations may lead
      back to it); where that one is absent, `restrict` stands in for it;
    - `allowed_fields`: collection name -> the fields the caller may read ("*": all;
      None: no restriction at all). A collection absent from it cannot be read, not even
      crossed into.

    Rules are filters as `resolve_variables` leaves them (validated again here, as
    permission rules).
    """

    def __init__(self, database: Database, schema: Schema) -> None:
        self._db = database
        self._schema = schema
        # Tables (and search columns) known to have their search index: a table never
        # loses it (a replay drops and builds both in one transaction).
        self._indexed: set[tuple[str, str]] = set()

    def list(
        self,
        collection_name: str,
        query: ItemQuery,
        *,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> Items:
        """The items matching the query and `restrict` (and with these primary `keys`),
        shaped by `query.fields`; related items are limited by `restrict_related`."""
        collection = self._schema[collection_name]
        query = validate(query, collection, self._schema, allowed_fields=allowed_fields)
        selection = select(query.fields, collection, self._schema, allowed_fields)
        rules = self._rule_book(collection, restrict, restrict_related)
        order, order_params = _order_by(self._schema, collection, query.sort, allowed_fields, rules)
        limit = _NO_LIMIT if query.limit is None else query.limit
        shaper = _Shaper(self._schema, rules)
        # A page in the order of an index: reading rows in that order may fill it soonest.
        in_index_order = len(query.sort) <= 1 and all(
            path in (collection.sort_field, collection.primary_key) for path, _ in query.sort
        )
        window = query.limit + query.offset if query.limit and in_index_order else None
        with self._db.transaction(write=False) as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules, window
            )
            _, items = shaper.fetch(
                conn,
                collection,
                selection,
                f"{where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, *order_params, limit, query.offset],
            )
        return items

    def count(
        self,
        collection_name: str,
        *,
        filter: Filter | None = None,
        search: str | None = None,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> int:
        """How many items match: `restrict` alone for meta total_count, with `filter` and
        `search` for filter_count, with `keys` for checking that items exist. Pass the
        same `restrict_related` as to `list`: a filter crossing relations sees only the
        related items that pass their rules."""
        collection = self._schema[collection_name]
        query = validate(
            ItemQuery(fields=(), filter=filter, search=search),
            collection,
            self._schema,
            allowed_fields=allowed_fields,
        )
        rules = self._rule_book(collection, restrict, restrict_related)
        with self._db.transaction(write=False) as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules
            )
            total = conn.fetchval(
                f'SELECT COUNT(*) FROM "{collection.table}" AS t WHERE {where}', params
            )
        return int(total)

    def aggregate(
        self,
        collection_name: str,
        query: ItemQuery,
        *,
        restrict: Filter | None = None,
        keys: Sequence[Any] | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> Items:
        """Directus's `aggregate` and `groupBy`: one row per group of the items matching
        the query and `restrict` (one row in all without `groupBy`), holding the group's
        fields and its aggregates, such as `{"status": "active", "count": 2, "sum":
        {"quantity": 10}}`. Rows come sorted by `query.sort`, then by the group fields,
        and paged by its limit and offset; `query.fields` is ignored."""
        collection = self._schema[collection_name]
        query = validate(query, collection, self._schema, allowed_fields=allowed_fields)
        rules = self._rule_book(collection, restrict, restrict_related)
        groups = [f't."{name}"' for name in query.group_by]
        outputs = [*groups, *(_aggregate_sql(aggregate) for aggregate in query.aggregate)]
        # Output columns c0, c1, ... by the names a sort gives them.
        names = [*query.group_by, *(aggregate.name for aggregate in query.aggregate)]
        column = {name: f"c{index}" for index, name in enumerate(names)}
        order = [
            column[path] + (" DESC NULLS LAST" if descending else " ASC NULLS FIRST")
            for path, descending in query.sort
        ]
        sorted_by = {path for path, _ in query.sort}
        order += [
            f"{column[name]} ASC NULLS FIRST" for name in query.group_by if name not in sorted_by
        ]
        select_list = ", ".join(f"{sql} AS c{index}" for index, sql in enumerate(outputs))
        limit = _NO_LIMIT if query.limit is None else query.limit
        with self._db.transaction(write=False) as conn:
            where, params = self._where(
                conn, collection, query, restrict, keys, allowed_fields, rules
            )
            sql = f'SELECT {select_list} FROM "{collection.table}" AS t WHERE {where}'
            if groups:
                sql += " GROUP BY " + ", ".join(groups)
            if order:
                sql += " ORDER BY " + ", ".join(order)
            rows = conn.fetchall(f"{sql} LIMIT ? OFFSET ?", [*params, limit, query.offset])
        return [_aggregate_row(collection, query, row) for row in rows]

    def get(
        self,
        collection_name: str,
        key: Any,
        query: ItemQuery | None = None,
        *,
        restrict: Filter | None = None,
        allowed_fields: AllowedFields | None = None,
        restrict_related: Rules | None = None,
    ) -> dict[str, Any] | None:
        """The item with this primary key, if it matches the query's filter and
        `restrict`; None otherwise."""
        single = replace(query or ItemQuery(), sort=(), limit=None, offset=0)
        items = self.list(
            collection_name,
            single,
            restrict=restrict,
            keys=[key],
            allowed_fields=allowed_fields,
            restrict_related=restrict_related,
        )
        return items[0] if items else None

    def keys_where(self, collection_name: str, field_name: str, value: Any) -> Keys:
        """The primary keys of the items whose stored field `field_name` equals `value`."""
        collection = self._schema[collection_name]
        condition = Condition((field_name,), "_eq", value)
        checked = validate(condition, collection, self._schema, purpose="permission")
        where, params = compile_filter(checked, collection, self._schema, self._db.dialect)
        pk = collection.primary_key
        sql = f'SELECT t."{pk}" FROM "{collection.table}" AS t WHERE {where} ORDER BY t."{pk}"'
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(sql, params)
        return [decode(collection.key, row[0]) for row in rows]

    def max_key(self, collection_name: str) -> int:
        """The largest integer primary key of the collection, 0 when it is empty."""
        collection = self._schema[collection_name]
        if collection.key.type is not FieldType.INTEGER:
            raise ValueError(f"{collection_name} has no integer primary key")
        sql = f'SELECT MAX("{collection.primary_key}") FROM "{collection.table}"'
        with self._db.transaction(write=False) as conn:
            return int(conn.fetchval(sql) or 0)

    def _rule_book(
        self, collection: Collection, restrict: Filter | None, related: Rules | None
    ) -> _RuleBook:
        own = {collection.name: restrict} if restrict is not None else {}
        return _RuleBook(self._schema, self._db.dialect, related or {}, own)

    def _where(
        self,
        conn: Connection,
        collection: Collection,
        query: ItemQuery,
        restrict: Filter | None,
        keys: Sequence[Any] | None,
        allowed_fields: AllowedFields | None,
        rules: _RuleBook,
        window: int | None = None,
    ) -> _Sql:
        dialect = self._db.dialect
        text_index = TextIndex(conn, lambda target: self._has_index(conn, target), window=window)
        parts: list[_Sql] = []
        if restrict is not None:
            # The rule itself is applied as written, like the related ones.
            rule = validate(restrict, collection, self._schema, purpose="permission")
            parts.append(compile_filter(rule, collection, self._schema, dialect))
        if query.filter is not None:
            compiler = _FilterCompiler(self._schema, dialect, "t", rules, text_index)
            parts.append(compiler.compile(query.filter, collection, "t"))
        if query.search is not None:
            fields = (
                None if allowed_fields is None else allowed_fields.get(collection.name, frozenset())
            )
            parts.append(
                compile_search(query.search, collection, fields=fields, text_index=text_index)
            )
        if keys is not None:
            parts.append(_keys_condition(collection, keys))
        if not parts:
            return "1 = 1", []
        return " AND ".join(sql for sql, _ in parts), [p for _, ps in parts for p in ps]

    def _has_index(self, conn: Connection, collection: Collection) -> bool:
        """Whether the collection's table has its search index."""
        known = (collection.table, search_column(collection))
        if known not in self._indexed and has_search_index(conn, collection):
            self._indexed.add(known)
        return known in self._indexed


def _aggregate_sql(aggregate: Aggregate) -> str:
    column = "*" if aggregate.field == "*" else f't."{aggregate.field}"'
    return _AGGREGATE_SQL[aggregate.function].format(column)


def _aggregate_row(collection: Collection, query: ItemQuery, row: Sequence[Any]) -> dict[str, Any]:
    """A result row of `ItemReader.aggregate` as Directus shapes it: the group's fields,
    then each aggregate under its function (`count`), or under its function and field
    (`{"sum": {"quantity": 10}}`)."""
    item: dict[str, Any] = {}
    for name, value in zip(query.group_by, row, strict=False):
        item[name] = decode(_field(collection, name), value)
    for aggregate, value in zip(query.aggregate, row[len(query.group_by) :], strict=True):
        function, name = aggregate
        field = None if name == "*" else _field(collection, name)
        if function.startswith("count"):
            result: Any = int(value)
        elif value is None or field is None:
            result = None
        elif function.startswith("avg"):
            result = float(value)
        elif function.startswith("sum"):
            result = int(value) if field.type is FieldType.INTEGER else float(value)
        else:
            result = decode(field, value)
        if field is None:
            item[function] = result
        else:
            item.setdefault(function, {})[name] = result
    return item


def _order_by(
    schema: Schema,
    collection: Collection,
    sort: tuple[tuple[str, bool], ...],
    allowed_fields: AllowedFields | None,
    rules: _RuleBook,
) -> _Sql:
    if not sort and readable(allowed_fields, collection.name, collection.sort_field):
        sort = ((collection.sort_field, False),)
    counter = itertools.count(1)
    terms: list[str] = []
    params: list[Any] = []
    for path, descending in sort:
        sql, term_params = _sort_expression(
            schema, collection, path.split("."), "t", counter, rules
        )
        terms.append(sql + (" DESC NULLS LAST" if descending else " ASC NULLS FIRST"))
        params += term_params
    # The key breaks ties, so pages never overlap or skip.
    terms.append(f't."{collection.primary_key}" ASC')
    return ", ".join(terms), params


def _sort_expression(
    schema: Schema,
    collection: Collection,
    segments: list[str],
    alias: str,
    counter: Iterator[int],
    rules: _RuleBook,
) -> _Sql:
    """The column to sort by; a many-to-one path reads it with a scalar subquery, which
    gives NULL where the related item is missing or fails its rule (Directus's left join
    on what the caller may see)."""
    if len(segments) == 1:
        return f'{alias}."{segments[0]}"', []
    field = _field(collection, segments[0])
    if field.relation is None:
        raise QueryError(f'"{field.name}" in collection "{collection.name}" is not a relation.')
    target = schema[field.relation]
    sub = f"s_{next(counter)}"
    inner, params = _sort_expression(schema, target, segments[1:], sub, counter, rules)
    where, params = _and_rule(
        f'{sub}."{target.primary_key}" = {alias}."{field.name}"',
        params,
        rules.condition(target, sub),
    )
    return f'(SELECT {inner} FROM "{target.table}" AS {sub} WHERE {where})', params


def _keys_condition(collection: Collection, keys: Sequence[Any]) -> _Sql:
    """Primary key among `keys`; a key that cannot be of the key's type, or that no
    column can hold (an integer beyond the signed 64-bit range), matches nothing."""
    values = []
    for key in keys:
        value = _key_value(key, collection.key)
        if value is not None:
            values.append(value)
    if not values:
        return "1 = 0", []
    return f't."{collection.primary_key}" IN ({", ".join("?" * len(values))})', values


def _key_value(key: Any, field: Field) -> Any:
    """A primary key as a statement parameter, or None when no stored key can equal it."""
    if isinstance(key, bool) or not isinstance(key, str | int | float):
        return None
    try:
        if isinstance(key, str):
            check_text(key, "A key")
            if field.type is FieldType.INTEGER and _INTEGER_KEY.fullmatch(key):
                key = int(key)
        value = _param(coerce_value(key, field))
    except QueryError:
        return None
    if isinstance(value, int) and not _INT64_MIN <= value <= _INT64_MAX:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class _Shaper:
    """Reads rows of a collection and shapes them into items, related items included.

    Related items are read with one query per relation (per chunk of keys) for all the
    rows at once, never one query per row, and only those that pass their rules.
    """

    def __init__(self, schema: Schema, rules: _RuleBook) -> None:
        self._schema = schema
        self._rules = rules

    def fetch(
        self,
        conn: Connection,
        collection: Collection,
        selection: Selection,
        tail: str,
        params: list[Any],
        extra: Sequence[str] = (),
    ) -> tuple[list[dict[str, Any]], Items]:
        """The raw rows (column -> stored value) and the items of `SELECT ... WHERE tail`."""
        stored = [key for key in selection.keys if collection.field(key) is not None]
        columns = list(dict.fromkeys([*stored, collection.primary_key, *extra]))
        select_list = ", ".join(f't."{column}"' for column in columns)
        rows = conn.fetchall(
            f'SELECT {select_list} FROM "{collection.table}" AS t WHERE {tail}', params
        )
        raw = [dict(zip(columns, row, strict=True)) for row in rows]
        return raw, self._shape(conn, collection, selection, raw)

    def _shape(
        self,
        conn: Connection,
        collection: Collection,
        selection: Selection,
        raw: list[dict[str, Any]],
    ) -> Items:
        items: Items = [{} for _ in raw]
        for key in selection.keys:
            field = collection.field(key)
            child = selection.child(key)
            if field is not None and child is None:
                for item, row in zip(items, raw, strict=True):
                    item[key] = decode(field, row[key])
            elif field is not None and child is not None:
                related = self._many_to_one(conn, field, child, [row[key] for row in raw])
                for item, row in zip(items, raw, strict=True):
                    item[key] = related.get(row[key])
            else:
                groups = self._one_to_many(conn, collection, key, child, raw)
                for item, row in zip(items, raw, strict=True):
                    item[key] = groups.get(row[collection.primary_key], [])
        return items

    def _many_to_one(
        self, conn: Connection, field: Field, selection: Selection, keys: list[Any]
    ) -> dict[Any, dict[str, Any]]:
        assert field.relation is not None
        target = self._schema[field.relation]
        found: dict[Any, dict[str, Any]] = {}
        wanted = list(dict.fromkeys(key for key in keys if key is not None))
        for chunk in chunks(wanted, _KEYS_PER_STATEMENT):
            where, params = self._in(target, target.primary_key, chunk)
            raw, items = self.fetch(conn, target, selection, where, params)
            found.update(zip((row[target.primary_key] for row in raw), items, strict=True))
        return found

    def _one_to_many(
        self,
        conn: Connection,
        collection: Collection,
        name: str,
        selection: Selection | None,
        parents: list[dict[str, Any]],
    ) -> dict[Any, list[Any]]:
        link = collection.alias(name)
        assert link is not None
        target = self._schema[link.collection]
        keys_only = selection is None
        wanted = selection or Selection(target.name, (target.primary_key,))
        order = f't."{target.sort_field}" ASC NULLS FIRST, t."{target.primary_key}" ASC'
        groups: defaultdict[Any, list[Any]] = defaultdict(list)
        parent_keys = list(dict.fromkeys(row[collection.primary_key] for row in parents))
        for chunk in chunks(parent_keys, _KEYS_PER_STATEMENT):
            where, params = self._in(target, link.foreign_key, chunk)
            where += _required(link, "t")
            raw, items = self.fetch(
                conn, target, wanted, f"{where} ORDER BY {order}", params, (link.foreign_key,)
            )
            for row, item in zip(raw, items, strict=True):
                groups[row[link.foreign_key]].append(
                    item[target.primary_key] if keys_only else item
                )
        return groups

    def _in(self, collection: Collection, column: str, values: Sequence[Any]) -> _Sql:
        sql = f't."{column}" IN ({", ".join("?" * len(values))})'
        return _and_rule(sql, list(values), self._rules.condition(collection, "t"))


def decode(field: Field, value: Any) -> Any:
    """A stored column value as the API shows it; concealed values are masked."""
    if value is None:
        return None
    if is_concealed(field):
        return CONCEALED
    match field.type:
        case FieldType.BOOLEAN:
            return bool(value)
        case FieldType.INTEGER:
            return int(value)
        case FieldType.FLOAT:
            return float(value)
        case FieldType.JSON:
            # Tolerates a native JSON column, which the driver already decodes.
            return orjson.loads(value) if isinstance(value, str | bytes) else value
        case _:
            return value
