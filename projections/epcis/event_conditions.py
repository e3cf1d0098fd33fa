"""The WHERE conditions of an EPCIS event query over the query tables: the query's own
parameters and a caller's scope, each vocabulary value read as its term number."""

from collections.abc import Iterable, Sequence
from typing import Any

from domain.epcis.attribute_parameters import AttributeMatch
from domain.epcis.event_query import EventQuery
from domain.epcis.field_parameters import FieldMatch
from domain.epcis.sensor_parameters import ColumnMatch
from infrastructure.sql_conditions import in_list
from projections.epcis.epc_roles import role_numbers
from projections.epcis.event_keys import event_keys, stored_event_id
from projections.epcis.stored_ids import matching_any
from projections.epcis.terms import (
    ACCOUNT,
    ACTION,
    BIZ_LOCATION,
    BIZ_STEP,
    DISPOSITION,
    EVENT_TYPE,
    READ_POINT,
    Term,
    TermIds,
)

_TYPED_TABLE = {
    "biz_transaction": ("epcis_event_biz_transactions", None),
    "source": ("epcis_event_parties", "source"),
    "destination": ("epcis_event_parties", "destination"),
}


def _vocabulary(query: EventQuery) -> tuple[tuple[int, Sequence[str]], ...]:
    """The vocabulary values `query` asks for as they are, by kind of term."""
    return (
        (EVENT_TYPE, query.event_types),
        (ACTION, query.actions),
        (BIZ_STEP, query.biz_steps),
        (DISPOSITION, query.dispositions),
        (READ_POINT, query.read_points),
        (BIZ_LOCATION, query.biz_locations),
    )


def named_terms(queries: Iterable[EventQuery]) -> set[Term]:
    """The terms whose numbers `build_where` reads for these queries (a query and its
    caller's scope), to be read beforehand (`TermIds.read_with`)."""
    named: set[Term] = set()
    for query in queries:
        for kind, values in _vocabulary(query):
            named.update((kind, value) for value in values)
        named.update((ACCOUNT, account) for account in query.capture_accounts or ())
    return named


def build_where(terms: TermIds, query: EventQuery, params: list[Any]) -> list[str]:
    """The WHERE conditions of a query over `epcis_events e`, appending their parameters
    (`terms` reads the numbers of the vocabulary values it names)."""
    dialect = terms.dialect
    where: list[str] = []
    for term_kind, values in _vocabulary(query):
        if values:
            where.append(terms.any_of(term_kind, values))
    where += _bounds(
        (
            ("e.event_time", query.ge_event_time, ">="),
            ("e.event_time", query.lt_event_time, "<"),
            ("e.record_time", query.ge_record_time, ">="),
            ("e.record_time", query.lt_record_time, "<"),
        ),
        params,
    )
    if query.transformation_ids:
        where.append(in_list("e.transformation_id", query.transformation_ids, params))
    if query.event_ids:
        # Both halves of each ID's 128-bit hash: an event of another ID would have to share
        # its key with one ID asked for and its check with one.
        keys = sorted({event_keys(event_id) for event_id in query.event_ids})
        where.append(in_list("e.event_key", [key for key, _ in keys], params))
        where.append(in_list("e.event_check", [check for _, check in keys], params))
    where.extend(_declaration_conditions(query, params))
    where.extend(_field_condition(terms, match, params) for match in query.field_matches)
    where.extend(_column_condition(match, params) for match in query.column_matches)
    where.extend(
        _attribute_condition(terms, match, query.master_data_accounts)
        for match in query.attribute_matches
    )
    if query.biz_location_trees:
        where.append(terms.matching(BIZ_LOCATION, query.biz_location_trees))
    if query.read_point_trees:
        where.append(terms.matching(READ_POINT, query.read_point_trees))
    for kind, values in (("set", query.persistent_set), ("unset", query.persistent_unset)):
        if values:
            dispositions = in_list("d.disposition", values, params)
            params.append(kind)
            where.append(
                "e.position IN (SELECT d.position FROM epcis_event_persistent_dispositions d"
                f" WHERE {dispositions} AND d.kind = ?)"
            )
    if query.capture_accounts is not None:
        where.append(terms.any_of(ACCOUNT, query.capture_accounts))
    if query.quantity:
        conditions = " AND ".join(f"q.quantity {op} ?" for op, _ in query.quantity)
        params.extend(value for _, value in query.quantity)
        where.append(
            f"e.position IN (SELECT q.position FROM epcis_event_quantities q WHERE {conditions})"
        )
    for match in query.epc_matches:
        table, column = (
            ("epcis_event_epcs", "x.epc")
            if match.table == "epcs"
            else ("epcis_event_quantities", "x.epc_class")
        )
        patterns = matching_any(dialect, column, match.patterns, params)
        roles = in_list("x.role", role_numbers(match.roles), params)
        where.append(
            f"e.position IN (SELECT x.position FROM {table} x WHERE {patterns} AND {roles})"
        )
    for typed in query.typed_values:
        table, direction = _TYPED_TABLE[typed.kind]
        typed_conditions = [in_list("t.value", typed.values, params), "t.type = ?"]
        params.append(typed.type)
        if direction is not None:
            typed_conditions.append("t.direction = ?")
            params.append(direction)
        where.append(
            f"e.position IN (SELECT t.position FROM {table} t"
            f" WHERE {' AND '.join(typed_conditions)})"
        )
    return where


def scope_condition(terms: TermIds, scope: Sequence[EventQuery], params: list[Any]) -> str:
    """The condition on `epcis_events e` of events that match any of the `scope` queries
    (a caller's read rule), appending its parameters."""
    alternatives = [
        " AND ".join(build_where(terms, allowed, params)) or "1 = 1" for allowed in scope
    ]
    return "(" + " OR ".join(f"({a})" for a in alternatives) + ")" if alternatives else "1 = 0"


def _bounds(bounds: Iterable[tuple[str, Any, str]], params: list[Any]) -> list[str]:
    """`column op ?` for each (column, bound, op) whose bound is given."""
    where = []
    for column, bound, op in bounds:
        if bound is not None:
            where.append(f"{column} {op} ?")
            params.append(bound)
    return where


def _declaration_conditions(query: EventQuery, params: list[Any]) -> list[str]:
    where = _bounds(
        (
            ("e.declaration_time", query.ge_declaration_time, ">="),
            ("e.declaration_time", query.lt_declaration_time, "<"),
        ),
        params,
    )
    if query.error_reasons:
        where.append(in_list("e.error_reason", query.error_reasons, params))
    if query.corrective_event_ids:
        corrective = [stored_event_id(i) for i in query.corrective_event_ids]
        ids = in_list("c.event_id", corrective, params)
        where.append(
            f"e.position IN (SELECT c.position FROM epcis_event_corrections c WHERE {ids})"
        )
    if query.declared and not where:
        where.append("e.declaration_time IS NOT NULL")
    return where


def _field_condition(terms: TermIds, match: FieldMatch, params: list[Any]) -> str:
    conditions = [terms.fields("f.field", match.scope, match.names)]
    if match.operator == "EQ":
        alternatives = [in_list("f.text_value", match.texts, params)]
        if match.numbers:
            alternatives.append(in_list("f.number_value", match.numbers, params))
        if match.instants:
            alternatives.append(in_list("f.time_value", match.instants, params))
        conditions.append("(" + " OR ".join(alternatives) + ")")
    elif match.operator != "EXISTS":
        column, bound = (
            ("f.time_value", match.instants[0])
            if match.instants
            else ("f.number_value", match.numbers[0])
        )
        conditions.append(f"{column} {match.operator} ?")
        params.append(bound)
    return (
        "e.position IN (SELECT f.position FROM epcis_event_fields f"
        f" WHERE {' AND '.join(conditions)})"
    )


_COLUMN_TABLES = {
    "elements": "epcis_event_sensor_elements",
    "reports": "epcis_event_sensor_reports",
    "quantities": "epcis_event_quantities",
}


def _column_condition(match: ColumnMatch, params: list[Any]) -> str:
    # Columns and operators come from the parameter tables in domain/epcis, never from
    # the request: only values are parameters.
    alternatives = []
    for table in match.tables:
        conditions = ["1 = 1"]
        if match.dimension is not None:
            conditions.append("c.dimension = ?")
            params.append(match.dimension)
        if match.operator == "IN":
            conditions.append(in_list(f"c.{match.column}", match.values, params))
        elif match.operator != "EXISTS":
            conditions.append(f"c.{match.column} {match.operator} ?")
            params.append(match.values[0])
        alternatives.append(
            f"e.position IN (SELECT c.position FROM {_COLUMN_TABLES[table]} c"
            f" WHERE {' AND '.join(conditions)})"
        )
    return alternatives[0] if len(alternatives) == 1 else "(" + " OR ".join(alternatives) + ")"


_PLACE_KINDS = {"readPoint": READ_POINT, "bizLocation": BIZ_LOCATION}


def _attribute_condition(
    terms: TermIds, match: AttributeMatch, accounts: tuple[str, ...] | None
) -> str:
    params: list[Any] = [match.vocabulary]
    conditions = ["a.vocabulary = ?", in_list("a.attribute", match.attributes, params)]
    if match.values:
        conditions.append(in_list("a.text_value", match.values, params))
    if accounts is not None:
        conditions.append(in_list("a.account", accounts, params))
    return terms.condition(
        _PLACE_KINDS[match.field],
        "t.value IN (SELECT a.element FROM epcis_vocabulary_attributes a"
        f" WHERE {' AND '.join(conditions)})",
        params,
    )
