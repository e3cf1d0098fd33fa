"""The table of named EPCIS queries (the `epcis_queries` collection)."""

from collections.abc import Sequence
from typing import Any

import orjson

from domain.epcis.named_query import NamedQuery
from infrastructure.database import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection


class NamedQueriesProjection(Projection):
    """One row per named query that currently exists."""

    name = "named_queries"
    follows = (NamedQuery.Defined, NamedQuery.Redefined, NamedQuery.Deleted)
    schema = (
        """CREATE TABLE IF NOT EXISTS epcis_queries (
            name TEXT PRIMARY KEY,
            query TEXT NOT NULL,
            user_created TEXT,
            date_created TEXT NOT NULL,
            user_updated TEXT,
            date_updated TEXT)""",
    )
    tables = ("epcis_queries",)

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Add, replace or remove rows as queries are defined and deleted."""
        for logged in events:
            change: Any = logged.event
            if isinstance(change, NamedQuery.Deleted):
                conn.execute(
                    "DELETE FROM epcis_queries WHERE name = ?",
                    (change.originator_id.removeprefix("epcis-query:"),),
                )
                continue
            name = change.originator_id.removeprefix("epcis-query:")
            conn.execute("DELETE FROM epcis_queries WHERE name = ?", (name,))
            conn.execute(
                "INSERT INTO epcis_queries (name, query, user_created, date_created)"
                " VALUES (?,?,?,?)",
                (name, orjson.dumps(change.query).decode(), change.defined_by, change.defined_at),
            )
