"""Reads the lineage tables a hop at a time: the relations of a whole frontier in one query."""

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from domain.epcis.event_query import EventQuery
from domain.epcis.lineage_terms import ASSOCIATED_WITH, CONTAINED_IN, MEMBER_OF, TRANSFORMED_INTO
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.event_store import log_position, log_table
from infrastructure.sql_conditions import any_of, chunks
from projections.epcis.epc_roles import ROLE_NUMBERS
from projections.epcis.event_conditions import scope_condition
from projections.epcis.lineage import RELATION_CODES, RELATIONS
from projections.epcis.stored_documents import logged_event_id
from projections.epcis.stored_ids import canonical_id, stored_id
from projections.epcis.terms import (
    ACTION,
    BIZ_LOCATION,
    BIZ_STEP,
    COLUMNS,
    DISPOSITION,
    EVENT_TYPE,
    READ_POINT,
    TermIds,
    held_in,
)

#: Identifiers per statement: one array (PostgreSQL) or JSON text (SQLite) parameter.
_CHUNK = 10_000

_COLUMNS = "relation, source, target, source_prefix, target_prefix, position, event_time"
#: The tables of an event's EPCs and classes, each with its identifier column.
_IDENTIFIER_ROWS = (("epcis_event_epcs", "epc"), ("epcis_event_quantities", "epc_class"))
_ASSOCIATION = ("AssociationEvent", EVENT_TYPE)
#: The texts of an event's step, disposition and places (see projections/epcis/terms.py).
_STATE_TERMS = "".join(
    f" LEFT JOIN epcis_terms {alias} ON {alias}.id = e.{COLUMNS[kind]}"
    for alias, kind in (
        ("bs", BIZ_STEP),
        ("d", DISPOSITION),
        ("bl", BIZ_LOCATION),
        ("rp", READ_POINT),
    )
)


@dataclass(frozen=True)
class LinkRow:
    """A relation as one event made it: `source` → `target` (canonical ids), with the
    length of each one's company prefix where the event spelled it as a URN."""

    relation: str
    source: str
    target: str
    source_prefix: int | None
    target_prefix: int | None
    position: int
    event_time: int
    #: When the earliest later DELETE the caller may read ended it, if one did.
    until: int | None


@dataclass(frozen=True)
class StateRow:
    """The latest event that names an identifier."""

    position: int
    event_time: int
    biz_step: str | None
    disposition: str | None
    biz_location: str | None
    read_point: str | None


#: The condition on `epcis_events e` of the events a caller may read, with its
#: parameters; None when the caller may read all.
_Scope = tuple[str, list[Any]] | None


@dataclass(frozen=True)
class _Hop:
    """One hop's question: from which identifiers, which way, as of when, for whom
    (`readable`), and whether only the parents they went into."""

    frontier: Sequence[str]
    downstream: bool
    at: int
    readable: _Scope
    parents_only: bool


def _scope_sql(conn: Connection, scope: Sequence[EventQuery] | None) -> _Scope:
    if scope is None:
        return None
    params: list[Any] = []
    return scope_condition(TermIds(conn), scope, params), params


def _declared(alias: str) -> str:
    """The condition that no error declaration retracted the event `alias` (of its own
    account: tenants may hold events under one event ID, each declared apart)."""
    # IS NOT DISTINCT FROM: outside multi-tenant installations both accounts are NULL.
    return (
        "NOT EXISTS (SELECT 1 FROM epcis_events d"
        f" WHERE d.event_key = {alias}.event_key AND d.event_check = {alias}.event_check"
        " AND d.declaration_time IS NOT NULL"
        f" AND d.account_term IS NOT DISTINCT FROM {alias}.account_term)"
    )


def _standing(at: int, readable: _Scope, params: list[Any]) -> list[str]:
    """The conditions that the event `epcis_events e` happened at or before `at`, is no
    error declaration, was not retracted by one and is one the caller may read."""
    params.append(at)
    where = ["e.event_time <= ?", "e.declaration_time IS NULL", _declared("e")]
    if readable is not None:
        where.append(readable[0])
        params.extend(readable[1])
    return where


def _containment_terms(conn: Connection) -> dict[tuple[str, int], list[int]]:
    """The term numbers of the event types and actions that put children into a parent,
    by (value, kind); a term no event holds yet has none."""
    rows = conn.fetchall(
        "SELECT t.value, t.kind, t.id FROM epcis_terms t WHERE (t.kind = ? AND t.value IN (?, ?))"
        " OR (t.kind = ? AND t.value IN (?, ?))",
        [EVENT_TYPE, "AggregationEvent", "AssociationEvent", ACTION, "ADD", "OBSERVE"],
    )
    found: dict[tuple[str, int], list[int]] = {}
    for value, kind, number in rows:
        found.setdefault((str(value), int(kind)), []).append(int(number))
    return found


class LineageReader:
    """Queries the lineage tables and the event tables beside them."""

    def __init__(self, database: Database) -> None:
        self._db = database
        #: By a trace's read transaction (`reading`), the containment terms' numbers once
        #: its first hop has read them: a statement a hop otherwise.
        self._containment: dict[Connection, dict[tuple[str, int], list[int]] | None] = {}

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """One read transaction for all the queries of a trace: one connection, one
        round trip per query, each with its generic plan on PostgreSQL."""
        with self._db.reading() as conn:
            if conn.dialect.name == "postgresql":
                # A hop's statement takes ~3 ms to plan and well under one to run, and its
                # plan does not depend on the frontier's identifiers. PostgreSQL planned it
                # for every run (its estimate of planning is small beside the statement's
                # cost): 5-hop traces at 100,000 events took 18 ms where 4 would do.
                conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            self._containment[conn] = None
            try:
                yield conn
            finally:
                del self._containment[conn]

    def links(
        self,
        conn: Connection,
        frontier: Sequence[str],
        downstream: bool,
        at: int,
        scope: Sequence[EventQuery] | None,
        parents_only: bool = False,
    ) -> list[LinkRow]:
        """Every relation leading from the `frontier` one hop downstream (to parents,
        outputs, a lot's members) or upstream (children, inputs, lots), made at or before
        `at` by an event `scope` lets the caller read, each with the time the earliest
        later DELETE the caller may read ended it (which may be before `at`).
        `parents_only`: only `contained_in`, downstream."""
        rows: list[LinkRow] = []
        readable = _scope_sql(conn, scope)
        for part in chunks([stored_id(i) for i in frontier], _CHUNK):
            hop = _Hop(part, downstream, at, readable, parents_only)
            sql, params = self._links_sql(conn, hop)
            found = conn.fetchall(sql, params)
            rows.extend(
                LinkRow(
                    RELATIONS[int(r[0])],
                    canonical_id(r[1]),
                    canonical_id(r[2]),
                    r[3],
                    r[4],
                    int(r[5]),
                    int(r[6]),
                    None if r[7] is None else int(r[7]),
                )
                for r in found
            )
        return rows

    def _containment_terms(self, conn: Connection) -> dict[tuple[str, int], list[int]]:
        """`_containment_terms`, read once in a trace's transaction (a term keeps its
        number while its table stands)."""
        if conn not in self._containment:
            return _containment_terms(conn)
        found = self._containment[conn]
        if found is None:
            found = self._containment[conn] = _containment_terms(conn)
        return found

    def _readable(self, position: str, readable: _Scope, params: list[Any]) -> str:
        """The condition that the event at `position` (a column) is one the caller may read
        (`readable`, see `_scope_sql`) and no error declaration retracted."""
        where = [f"e.position = {position}", _declared("e")]
        if readable is not None:
            where.append(readable[0])
            params.extend(readable[1])
        return f"EXISTS (SELECT 1 FROM epcis_events e WHERE {' AND '.join(where)})"

    def _until(self, link: str, readable: _Scope, params: list[Any]) -> str:
        """The time of the earliest readable DELETE ending the link `link` (an alias)."""
        where = [
            f"n.parent = {link}.target",
            f"n.relation = {link}.relation",
            f"(n.child IS NULL OR n.child = {link}.source)",
            f"n.event_time >= {link}.event_time",
            self._readable("n.position", readable, params),
        ]
        return f"(SELECT MIN(n.event_time) FROM epcis_lineage_ends n WHERE {' AND '.join(where)})"

    def _held(self, conn: Connection, hop: _Hop, params: list[Any]) -> str:
        """A query of what the ADDs and OBSERVEs of aggregations (and associations, unless
        the hop is `parents_only`) put into a parent, from (downstream) or into (upstream)
        the hop's frontier: each child row of such an event with its parent row, in the
        columns of `_COLUMNS`."""
        types = self._containment_terms(conn)
        aggregation = types.get(("AggregationEvent", EVENT_TYPE), [])
        kinds = aggregation if hop.parents_only else [*aggregation, *types.get(_ASSOCIATION, [])]
        actions = [*types.get(("ADD", ACTION), []), *types.get(("OBSERVE", ACTION), [])]
        relation = (
            f"CASE WHEN {held_in('e.event_type_term', aggregation)}"
            f" THEN {RELATION_CODES[CONTAINED_IN]} ELSE {RELATION_CODES[ASSOCIATED_WITH]} END"
        )
        selects = []
        for table, column in _IDENTIFIER_ROWS:
            where = [
                any_of(
                    self._db.dialect,
                    f"c.{column}" if hop.downstream else "p.epc",
                    hop.frontier,
                    params,
                ),
                f"c.role = {ROLE_NUMBERS['child']}",
                # Unary plus: the frontier's identifiers drive the join, never every
                # aggregation by its type's index (SQLite chose that, 400 times slower).
                held_in("+e.event_type_term", kinds),
                held_in("+e.action_term", actions),
                *_standing(hop.at, hop.readable, params),
            ]
            selects.append(
                f"SELECT {relation} AS relation, c.{column} AS source, p.epc AS target,"
                " c.prefix AS source_prefix, p.prefix AS target_prefix, c.position AS position,"
                f" e.event_time AS event_time FROM {table} c"
                " JOIN epcis_events e ON e.position = c.position"
                f" JOIN epcis_event_epcs p ON p.position = c.position"
                f" AND p.role = {ROLE_NUMBERS['parent']} WHERE {' AND '.join(where)}"
            )
        return " UNION ALL ".join(selects)

    def _links_sql(self, conn: Connection, hop: _Hop) -> tuple[str, list[Any]]:
        """One statement for a hop; its parameters in the order the text names them."""
        dialect = self._db.dialect
        params: list[Any] = []
        frontier, downstream, at, readable = hop.frontier, hop.downstream, hop.at, hop.readable
        far = "target" if downstream else "source"
        # Children and parents, ended by DELETEs.
        until = self._until("l", readable, params)
        held = self._held(conn, hop, params)
        selects = [f"SELECT {_COLUMNS}, {until} FROM ({held}) l"]
        if hop.parents_only:
            return selects[0], params
        # A lot's members (downstream) or an item's lot (upstream).
        where = [any_of(dialect, f"m.{far}", frontier, params), "m.relation = ?"]
        params.extend((RELATION_CODES[MEMBER_OF], at))
        where.append("m.event_time <= ?")
        where.append(self._readable("m.position", readable, params))
        selects.append(
            f"SELECT {_COLUMNS}, CAST(NULL AS {{bigint}})"
            f" FROM epcis_lineage_links m WHERE {' AND '.join(where)}"
        )
        # Outputs of what the frontier went into, or inputs of what made it: `f` is the
        # frontier's side, `o` the other; the edge is the output's event's.
        side, other = ("input", "output") if downstream else ("output", "input")
        source, target = ("f", "o") if downstream else ("o", "f")
        output = "o" if downstream else "f"
        where = [any_of(dialect, "f.item", frontier, params), "f.side = ?", "o.side = ?"]
        params.extend((side, other, at, at))
        where.extend(("f.event_time <= ?", "o.event_time <= ?"))
        where.append(self._readable("f.position", readable, params))
        where.append(self._readable("o.position", readable, params))
        selects.append(
            f"SELECT {RELATION_CODES[TRANSFORMED_INTO]}, {source}.item, {target}.item,"
            f" {source}.item_prefix, {target}.item_prefix, {output}.position, {output}.event_time,"
            " CAST(NULL AS {bigint})"
            " FROM epcis_lineage_transformed f JOIN epcis_lineage_transformed o"
            f" ON o.transformation = f.transformation WHERE {' AND '.join(where)}"
        )
        return " UNION ALL ".join(selects), params

    def event_ids(self, conn: Connection, positions: Collection[int]) -> dict[int, str]:
        """The event ID of each event at these log positions, from its log entry (the
        query tables keep only a key of it: event_keys.py)."""
        name = self._db.dialect.name
        found: dict[int, str] = {}
        for part in chunks(sorted(positions), _CHUNK):
            params: list[Any] = []
            where = any_of(self._db.dialect, f"s.{log_position(name)}", part, params)
            sql = f"SELECT s.{log_position(name)}, s.state FROM {log_table(name)} s WHERE {where}"
            found.update((int(r[0]), logged_event_id(r[1])) for r in conn.fetchall(sql, params))
        return found

    def latest(
        self, conn: Connection, ids: Collection[str], at: int, scope: Sequence[EventQuery] | None
    ) -> dict[str, StateRow]:
        """For each identifier, the latest readable event at or before `at` that names it
        (as an EPC in any role, or as a quantity's class)."""
        latest: dict[str, StateRow] = {}
        readable = _scope_sql(conn, scope)
        for part in chunks(sorted(stored_id(i) for i in ids), _CHUNK):
            params: list[Any] = []
            selects = []
            for table, column in _IDENTIFIER_ROWS:
                where = [
                    any_of(self._db.dialect, f"x.{column}", part, params),
                    *_standing(at, readable, params),
                ]
                selects.append(
                    f"SELECT x.{column}, e.position, e.event_time, bs.value,"
                    " d.value, bl.value, rp.value"
                    f" FROM {table} x JOIN epcis_events e ON e.position = x.position"
                    f"{_STATE_TERMS} WHERE {' AND '.join(where)}"
                )
            found = conn.fetchall(" UNION ALL ".join(selects), params)
            for r in found:
                row = StateRow(int(r[1]), int(r[2]), r[3], r[4], r[5], r[6])
                identifier = canonical_id(r[0])
                known = latest.get(identifier)
                if known is None or (row.event_time, row.position) > (
                    known.event_time,
                    known.position,
                ):
                    latest[identifier] = row
        return latest
