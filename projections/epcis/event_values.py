"""The distinct values events hold (EPCs, steps, places, types), from the query tables'
indexes, one keyset page at a time."""

from collections.abc import Sequence
from typing import Any

from domain.epcis.event_query import EventQuery
from infrastructure.database import Database
from projections.epcis.event_conditions import scope_condition
from projections.epcis.stored_ids import canonical_id, stored_id
from projections.epcis.terms import (
    BIZ_LOCATION,
    BIZ_STEP,
    COLUMNS,
    DISPOSITION,
    EVENT_TYPE,
    READ_POINT,
    TermIds,
)

#: The kind of term each vocabulary resource lists (`epcs` are in their own table).
KINDS: dict[str, int] = {
    "eventTypes": EVENT_TYPE,
    "bizSteps": BIZ_STEP,
    "bizLocations": BIZ_LOCATION,
    "readPoints": READ_POINT,
    "dispositions": DISPOSITION,
}


class EventValueReader:
    """Lists the values of one kind that stored events hold: vocabulary values in
    code-point order, EPCs in the order of their stored form (`stored_ids.py`: GS1 keys
    by their key path first)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def values(
        self,
        resource: str,
        *,
        limit: int,
        snapshot: int,
        after: str | None = None,
        scope: Sequence[EventQuery] | None = None,
    ) -> list[str]:
        """Up to `limit` distinct values of `resource` after `after`, held by events at
        log positions ≤ `snapshot` that match one of the `scope` queries (when given)."""
        if after is not None and resource not in KINDS:
            after = stored_id(after)
        with self._db.transaction(write=False) as conn:
            if scope is None and resource in KINDS:
                sql, params = self._terms(KINDS[resource], limit, snapshot, after)
            elif scope is None:
                sql, params = self._skip_scan(limit, snapshot, after)
            else:
                sql, params = _within(TermIds(conn), resource, limit, snapshot, after, scope)
            found = [row[0] for row in conn.fetchall(sql, params)]
        return found if resource in KINDS else [canonical_id(value) for value in found]

    def _terms(
        self, kind: int, limit: int, snapshot: int, after: str | None
    ) -> tuple[str, list[Any]]:
        # The kind's terms in text order, each kept when an event within the snapshot
        # holds it: one index probe per term (terms are only ever added by events).
        column = COLUMNS[kind]
        params: list[Any] = [kind]
        where = ["t.kind = ?"]
        if after is not None:
            where.append("t.value > ?")
            params.append(after)
        where.append(
            f"EXISTS (SELECT 1 FROM epcis_events e WHERE e.{column} = t.id AND e.position <= ?)"
        )
        params.extend((snapshot, limit))
        sql = (
            f"SELECT t.value FROM epcis_terms t WHERE {' AND '.join(where)}"
            " ORDER BY t.value LIMIT ?"
        )
        return sql, params

    def _skip_scan(self, limit: int, snapshot: int, after: str | None) -> tuple[str, list[Any]]:
        # One index probe per EPC: an EPC in a million events costs what one in a single
        # event does, where DISTINCT would read every index entry of both.
        def next_value(bound: str) -> str:
            return (
                f"(SELECT v.epc FROM epcis_event_epcs v WHERE v.epc > {bound}"
                " AND v.position <= ? ORDER BY v.epc LIMIT 1)"
            )

        first = next_value("?") if after is not None else next_value("''")
        sql = (
            f"WITH RECURSIVE found(value, n) AS (SELECT {first}, 1"
            f" UNION ALL SELECT {next_value('found.value')}, found.n + 1 FROM found"
            " WHERE found.value IS NOT NULL AND found.n < ?)"
            " SELECT value FROM found WHERE value IS NOT NULL"
        )
        params: list[Any] = [after] if after is not None else []
        params.extend((snapshot, snapshot, limit))
        return sql, params


def _within(
    terms: TermIds,
    resource: str,
    limit: int,
    snapshot: int,
    after: str | None,
    scope: Sequence[EventQuery],
) -> tuple[str, list[Any]]:
    # A caller limited by a rule reads the values of the events its scope allows:
    # those events are found first, through the scope's own indexes.
    params: list[Any] = [snapshot]
    if resource in KINDS:
        column = COLUMNS[KINDS[resource]]
        source = f"epcis_events e JOIN epcis_terms t ON t.id = e.{column}"
        value = "t.value"
    else:
        source = "epcis_event_epcs v JOIN epcis_events e ON e.position = v.position"
        value = "v.epc"
    where = ["e.position <= ?", f"{value} IS NOT NULL"]
    if after is not None:
        where.append(f"{value} > ?")
        params.append(after)
    where.append(scope_condition(terms, scope, params))
    params.append(limit)
    sql = (
        f"SELECT DISTINCT {value} FROM {source} WHERE {' AND '.join(where)}"
        f" ORDER BY {value} LIMIT ?"
    )
    return sql, params
