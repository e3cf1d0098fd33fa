"""The distinct values events hold (EPCs, steps, places, types), from the query tables'
indexes, one keyset page at a time."""

from collections.abc import Sequence
from typing import Any

from domain.epcis.event_query import EventQuery
from infrastructure.database import Database
from projections.epcis.event_reader import build_where

#: Where each resource's values are indexed: table and column.
SOURCES: dict[str, tuple[str, str]] = {
    "eventTypes": ("epcis_events", "event_type"),
    "epcs": ("epcis_event_epcs", "epc"),
    "bizSteps": ("epcis_events", "biz_step"),
    "bizLocations": ("epcis_events", "biz_location"),
    "readPoints": ("epcis_events", "read_point"),
    "dispositions": ("epcis_events", "disposition"),
}


class EventValueReader:
    """Lists the values of one kind that stored events hold, in code-point order."""

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
        if scope is None:
            sql, params = self._skip_scan(resource, limit, snapshot, after)
        else:
            sql, params = self._within(resource, limit, snapshot, after, scope)
        with self._db.transaction(write=False) as conn:
            return [row[0] for row in conn.fetchall(sql, params)]

    def _skip_scan(
        self, resource: str, limit: int, snapshot: int, after: str | None
    ) -> tuple[str, list[Any]]:
        # One index probe per value: a step held by a million events costs what a step
        # held by one does, where DISTINCT would read every index entry of both.
        table, column = SOURCES[resource]

        def next_value(bound: str) -> str:
            return (
                f"(SELECT v.{column} FROM {table} v WHERE v.{column} > {bound}"
                f" AND v.position <= ? ORDER BY v.{column} LIMIT 1)"
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
        self,
        resource: str,
        limit: int,
        snapshot: int,
        after: str | None,
        scope: Sequence[EventQuery],
    ) -> tuple[str, list[Any]]:
        # A caller limited by a rule reads the values of the events its scope allows:
        # those events are found first, through the scope's own indexes.
        table, column = SOURCES[resource]
        params: list[Any] = [snapshot]
        source = "epcis_events e"
        value = f"e.{column}"
        if table != "epcis_events":
            source = f"{table} v JOIN epcis_events e ON e.position = v.position"
            value = f"v.{column}"
        where = ["e.position <= ?", f"{value} IS NOT NULL"]
        if after is not None:
            where.append(f"{value} > ?")
            params.append(after)
        alternatives = [
            " AND ".join(build_where(self._db.dialect, allowed, params)) or "1 = 1"
            for allowed in scope
        ]
        where.append("(" + " OR ".join(f"({a})" for a in alternatives) + ")" if scope else "1 = 0")
        params.append(limit)
        sql = (
            f"SELECT DISTINCT {value} FROM {source} WHERE {' AND '.join(where)}"
            f" ORDER BY {value} LIMIT ?"
        )
        return sql, params
