"""The tables of the reference lists (ref_country, ref_uom, …), filled from the lists the
service ships rather than from the log.

They are tables like the records' so that the one query compiler serves them: filters,
sort, search, and relations crossed from the master data (`country_code.name`), in SQL
on both backends.
"""

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from domain.collections.schema import Collection
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.items.records import collection_ddl
from projections.projection import Projection

#: A row of a reference list: field name -> value.
Row = Mapping[str, Any]


class ReferenceProjection(Projection):
    """Keeps each reference list's table equal to the list: filled when the table is
    made, made again (by the runner) when the list changes. Follows no event."""

    name = "references"
    follows = ()

    def __init__(self, lists: Sequence[tuple[Collection, Sequence[Row]]]) -> None:
        self._lists = tuple((collection, tuple(rows)) for collection, rows in lists)
        collections = tuple(collection for collection, _ in self._lists)
        self.schema = tuple(s for c in collections for s in collection_ddl(c))
        self.tables = tuple(c.table for c in collections)
        self.searched = collections
        # A newer list (a pycountry upgrade) has other rows under the same DDL: its digest
        # is part of the tables' shape, so the runner drops them and they are filled anew.
        self.revision = _digest(self._lists)

    def fill(self, conn: Connection) -> None:
        """Fill the tables that are empty (new, made anew, or emptied by hand)."""
        for collection, rows in self._lists:
            if conn.fetchval(f'SELECT 1 FROM "{collection.table}" LIMIT 1') is not None:
                continue
            names = [f.name for f in collection.fields]
            conn.insert_many(
                f'"{collection.table}"',
                [f'"{name}"' for name in names],
                [[row.get(name) for name in names] for row in rows],
            )

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Nothing: the lists are not in the log."""


def _digest(lists: Sequence[tuple[Collection, Sequence[Row]]]) -> int:
    """A number that changes whenever a list's rows do (positive, to count as raised)."""
    text = orjson.dumps(
        [[c.name, [dict(row) for row in rows]] for c, rows in lists], option=orjson.OPT_SORT_KEYS
    )
    return int(hashlib.sha256(text).hexdigest()[:12], 16) or 1
