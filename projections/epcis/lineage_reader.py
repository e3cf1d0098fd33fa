"""Reads the lineage tables a hop at a time: the relations of a whole frontier in one query."""

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from domain.epcis.event_query import EventQuery
from domain.epcis.lineage_terms import ASSOCIATED_WITH, CONTAINED_IN, MEMBER_OF, TRANSFORMED_INTO
from infrastructure.database import Database, any_of, chunks
from projections.epcis.event_reader import scope_condition

#: Identifiers per statement: one array (PostgreSQL) or JSON text (SQLite) parameter.
_CHUNK = 10_000

_COLUMNS = "relation, source, target, source_urn, target_urn, position, event_time"


@dataclass(frozen=True)
class LinkRow:
    """A relation as one event made it: `source` → `target` (canonical ids)."""

    relation: str
    source: str
    target: str
    source_urn: str | None
    target_urn: str | None
    position: int
    event_time: int
    #: For a transformation across events: the event of the input, else None.
    input_position: int | None


@dataclass(frozen=True)
class EndRow:
    """A DELETE of a parent's child (None: of all its children)."""

    relation: str
    parent: str
    child: str | None
    position: int
    event_time: int


@dataclass(frozen=True)
class StateRow:
    """The latest event that names an identifier."""

    position: int
    event_id: str
    event_time: int
    biz_step: str | None
    disposition: str | None
    biz_location: str | None
    read_point: str | None


def _declared(alias: str) -> str:
    return (
        f"NOT EXISTS (SELECT 1 FROM epcis_events d WHERE d.event_id = {alias}.event_id"
        " AND d.declaration_time IS NOT NULL)"
    )


class LineageReader:
    """Queries the lineage tables and the event tables beside them."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def links(self, frontier: Sequence[str], downstream: bool, at: int) -> list[LinkRow]:
        """Every relation leading from the `frontier` one hop downstream (to parents,
        outputs, a lot's members) or upstream (children, inputs, lots), made at or before
        `at`; ended ones too (`ends` tells which)."""
        rows: list[LinkRow] = []
        for part in chunks(list(frontier), _CHUNK):
            rows.extend(self._links(part, downstream, at))
        return rows

    def _links(self, frontier: Sequence[str], downstream: bool, at: int) -> list[LinkRow]:
        dialect = self._db.dialect
        params: list[Any] = []
        near, far = ("source", "target") if downstream else ("target", "source")
        parents = any_of(dialect, f"l.{near}", frontier, params)
        params.extend((CONTAINED_IN, ASSOCIATED_WITH, at))
        lots = any_of(dialect, f"m.{far}", frontier, params)
        params.extend((MEMBER_OF, at))
        side, other = ("input", "output") if downstream else ("output", "input")
        transformed = any_of(dialect, "i.item", frontier, params)
        params.extend((side, at, other, at))
        first, second = ("i", "o") if downstream else ("o", "i")
        sql = (
            f"SELECT {_COLUMNS}, CAST(NULL AS {{bigint}}) FROM epcis_lineage_links l"
            f" WHERE {parents} AND l.relation IN (?, ?) AND l.event_time <= ?"
            f" UNION ALL SELECT {_COLUMNS}, CAST(NULL AS {{bigint}}) FROM epcis_lineage_links m"
            f" WHERE {lots} AND m.relation = ? AND m.event_time <= ?"
            f" UNION ALL SELECT '{TRANSFORMED_INTO}', {first}.item, {second}.item,"
            f" {first}.item_urn, {second}.item_urn, o.position, o.event_time, i.position"
            " FROM epcis_lineage_transformed i JOIN epcis_lineage_transformed o"
            " ON o.transformation = i.transformation"
            f" WHERE {transformed} AND i.side = ? AND i.event_time <= ?"
            " AND o.side = ? AND o.event_time <= ?"
        )
        if not downstream:
            # Upstream, `i` is the output side found from the frontier, `o` the input.
            sql = sql.replace(
                "o.position, o.event_time, i.position", "i.position, i.event_time, o.position"
            )
        with self._db.reading() as conn:
            found = conn.fetchall(sql, params)
        return [
            LinkRow(
                str(r[0]),
                str(r[1]),
                str(r[2]),
                r[3],
                r[4],
                int(r[5]),
                int(r[6]),
                None if r[7] is None else int(r[7]),
            )
            for r in found
        ]

    def ends(self, parents: Collection[str]) -> list[EndRow]:
        """Every DELETE of children of these parents."""
        rows: list[EndRow] = []
        for part in chunks(sorted(parents), _CHUNK):
            params: list[Any] = []
            condition = any_of(self._db.dialect, "parent", part, params)
            with self._db.reading() as conn:
                found = conn.fetchall(
                    "SELECT relation, parent, child, position, event_time"
                    f" FROM epcis_lineage_ends WHERE {condition}",
                    params,
                )
            rows.extend(EndRow(str(r[0]), str(r[1]), r[2], int(r[3]), int(r[4])) for r in found)
        return rows

    def readable(
        self, positions: Collection[int], scope: Sequence[EventQuery] | None
    ) -> dict[int, str]:
        """The event IDs of those events at `positions` that `scope` lets a caller read and
        that no error declaration retracted."""
        readable: dict[int, str] = {}
        for part in chunks(sorted(positions), _CHUNK):
            params: list[Any] = []
            where = [any_of(self._db.dialect, "e.position", part, params), _declared("e")]
            if scope is not None:
                where.append(scope_condition(self._db.dialect, scope, params))
            sql = f"SELECT e.position, e.event_id FROM epcis_events e WHERE {' AND '.join(where)}"
            with self._db.reading() as conn:
                found = conn.fetchall(sql, params)
            readable.update((int(r[0]), str(r[1])) for r in found)
        return readable

    def latest(
        self, ids: Collection[str], at: int, scope: Sequence[EventQuery] | None
    ) -> dict[str, StateRow]:
        """For each identifier, the latest readable event at or before `at` that names it
        (as an EPC in any role, or as a quantity's class)."""
        latest: dict[str, StateRow] = {}
        for part in chunks(sorted(ids), _CHUNK):
            params: list[Any] = []
            selects = []
            for table, column in (
                ("epcis_event_epcs", "epc"),
                ("epcis_event_quantities", "epc_class"),
            ):
                where = [
                    any_of(self._db.dialect, f"x.{column}", part, params),
                    "e.event_time <= ?",
                    "e.declaration_time IS NULL",
                    _declared("e"),
                ]
                params.append(at)
                if scope is not None:
                    where.append(scope_condition(self._db.dialect, scope, params))
                selects.append(
                    f"SELECT x.{column}, e.position, e.event_id, e.event_time, e.biz_step,"
                    " e.disposition, e.biz_location, e.read_point"
                    f" FROM {table} x JOIN epcis_events e ON e.position = x.position"
                    f" WHERE {' AND '.join(where)}"
                )
            with self._db.reading() as conn:
                found = conn.fetchall(" UNION ALL ".join(selects), params)
            for r in found:
                row = StateRow(int(r[1]), str(r[2]), int(r[3]), r[4], r[5], r[6], r[7])
                known = latest.get(str(r[0]))
                if known is None or (row.event_time, row.position) > (
                    known.event_time,
                    known.position,
                ):
                    latest[str(r[0])] = row
        return latest
