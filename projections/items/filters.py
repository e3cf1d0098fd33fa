"""Filters as SQL: the WHERE fragments of the query language, with related item rules.

Null semantics are SQL's, as in Directus (knex): a negative operator (`_neq`, `_nin`,
`_ncontains`, `_nbetween`, ...) does not match rows whose value is NULL. A path through a
many-to-one relation behaves like Directus's left join: a missing related item counts as
a related item whose fields are all NULL. Case-insensitive operators compare `LOWER` of
both sides, which on SQLite folds ASCII letters only.
"""

import itertools
from collections.abc import Sequence
from dataclasses import replace
from enum import Enum
from typing import Any

import orjson

from domain.collections.filters import And, Condition, Filter, Or, Related
from domain.collections.operators import ARRAY_OPERATORS, STRING_MATCHES
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Collection, Field, FieldType, Schema
from domain.collections.validation import validate
from infrastructure.sql_conditions import glob_condition
from infrastructure.sql_dialect import Dialect
from projections.items.search import TextIndex
from projections.items.sql import Rules, Sql, and_rule, escape_like, field_of, link_condition, param
from projections.search_index import indexed_fields, search_fields

_SYMBOLS = {"_eq": "=", "_neq": "<>", "_lt": "<", "_lte": "<=", "_gt": ">", "_gte": ">="}
# These hold on NULL, so a missing related item must satisfy them too.
_TRUE_ON_NULL = frozenset({"_null", "_empty"})
_TEXT_TYPES = frozenset({FieldType.STRING, FieldType.TEXT, FieldType.UUID, FieldType.HASH})


class _Wildcard(Enum):
    """The wildcard `glob_condition` expects (it reads the member's name)."""

    ANY = "ANY"


def compile_filter(
    filter: Filter, collection: Collection, schema: Schema, dialect: Dialect, alias: str = "t"
) -> Sql:
    """A WHERE fragment for a validated filter on `collection`'s table aliased `alias`,
    with no item rules on the related items it reaches (for rules and internal lookups;
    `ItemReader` compiles callers' filters with their related rules).

    Many-to-one paths become `"role" IN (SELECT ...)`, to-many conditions EXISTS (`_some`)
    or NOT EXISTS (`_none`) on the related table's foreign key.
    """
    rules = RuleBook(schema, dialect, {})
    return FilterCompiler(schema, dialect, alias, rules).compile(filter, collection, alias)


class RuleBook:
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

    def condition(self, collection: Collection, alias: str) -> Sql | None:
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


class FilterCompiler:
    """Compiles one filter; numbers the aliases of its subqueries."""

    def __init__(
        self,
        schema: Schema,
        dialect: Dialect,
        alias: str,
        rules: RuleBook,
        text_index: TextIndex | None = None,
    ) -> None:
        self._schema = schema
        self._dialect = dialect
        self._prefix = alias
        self._rules = rules
        self._text_index = text_index
        self._count = itertools.count(1)

    def compile(self, node: Filter, collection: Collection, alias: str) -> Sql:
        """The WHERE fragment of `node` on `collection`'s table aliased `alias`."""
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
    ) -> Sql:
        if not items:
            return empty, []
        parts = [self.compile(item, collection, alias) for item in items]
        return "(" + joint.join(sql for sql, _ in parts) + ")", [p for _, ps in parts for p in ps]

    def _condition(self, condition: Condition, collection: Collection, alias: str) -> Sql:
        if len(condition.path) > 1:
            rest = replace(condition, path=condition.path[1:])
            true_on_null = condition.operator in _TRUE_ON_NULL
            return self._many_to_one(collection, condition.path[0], alias, rest, true_on_null)
        field = field_of(collection, condition.path[0])
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
    ) -> tuple[Sql, bool] | None:
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

    def _related(self, related: Related, collection: Collection, alias: str) -> Sql:
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
        where, params = and_rule(
            f'{sub}."{link.foreign_key}" = {alias}."{collection.primary_key}"'
            + link_condition(link, sub),
            [],
            self._rules.condition(target, sub),
        )
        inner, inner_params = self.compile(related.filter, target, sub)
        exists = f'EXISTS (SELECT 1 FROM "{target.table}" AS {sub} WHERE {where} AND {inner})'
        sql = "NOT " + exists if related.quantifier == "_none" else exists
        return sql, [*params, *inner_params]

    def _many_to_one(
        self, collection: Collection, name: str, alias: str, rest: Filter, true_on_null: bool
    ) -> Sql:
        field = field_of(collection, name)
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
            where, rule_params = and_rule(f'{key} = {alias}."{name}"', [], rule)
            return (
                f'NOT EXISTS (SELECT 1 FROM "{target.table}" AS {sub} WHERE {where}'
                f" AND NOT ({inner}))"
            ), [*rule_params, *params]
        where, params = and_rule(inner, params, rule)
        return (
            f'{alias}."{name}" IN (SELECT {key} FROM "{target.table}" AS {sub} WHERE {where})',
            params,
        )

    def _operator(self, column: str, field: Field, op: str, value: Any) -> Sql:
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
                return f"{column} {keyword} ? AND ?", [param(v) for v in value]
        if op in _SYMBOLS:
            return f"{column} {_SYMBOLS[op]} ?", [param(value)]
        if field.array and op in ARRAY_OPERATORS:
            # A list of strings is held as its JSON text: an element is its quoted form.
            return self._pattern(column, op, orjson.dumps(str(value)).decode())
        if op in STRING_MATCHES:
            return self._pattern(column, op, value)
        raise QueryError(f'The "{op}" filter operator cannot be used in a query.')

    def _pattern(self, column: str, op: str, value: str) -> Sql:
        spec = STRING_MATCHES[op]
        if spec.insensitive:
            text = (
                ("" if spec.at_start else "%") + escape_like(value) + ("" if spec.at_end else "%")
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


def _membership(column: str, op: str, values: Sequence[Any]) -> Sql:
    if not values:
        # Knex's answer for an empty list, which only permission rules can hold.
        return ("1 = 0" if op == "_in" else "1 = 1"), []
    marks = ", ".join("?" * len(values))
    keyword = "IN" if op == "_in" else "NOT IN"
    return f"{column} {keyword} ({marks})", [param(v) for v in values]
