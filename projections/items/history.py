"""The `activity` and `revisions` tables: who changed which record, when, and how.

Built from the record events alone: row ids are log positions, so a replay writes the
same rows, and a deleted record keeps every row of its history.
"""

from collections.abc import Sequence
from typing import Any

import orjson

from domain.collections.schema import Collection
from domain.records.history import ACTIVITY, HISTORY_COLLECTIONS, REVISIONS, masked
from domain.records.record import Record
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.items.records import collection_ddl
from projections.projection import Projection

_ACTIVITY_COLUMNS = ("id", "action", "user", "timestamp", "ip", "user_agent", "collection", "item")
_REVISION_COLUMNS = ("id", "activity", "collection", "item", "data", "delta")

#: The only field a sign-in writes (`AccountStatus.signed_in`).
_SIGN_IN_FIELDS = frozenset({"last_access"})


def _insert(table: str, columns: Sequence[str]) -> str:
    names = ", ".join(f'"{c}"' for c in columns)
    return f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'


class HistoryProjection(Projection):
    """One activity row per record event, and one revision per create and update.

    An update of a user that sets only `last_access` is a sign-in: a `login` activity
    and no revision. Concealed values (hashes, TFA secrets) are stored masked.
    """

    name = "history"
    follows = (Record.Created, Record.Updated, Record.Deleted, Record.Recreated)
    tables = (ACTIVITY.table, REVISIONS.table)
    searched = HISTORY_COLLECTIONS

    def __init__(self, collections: Sequence[Collection]) -> None:
        # Every collection whose records may be logged, for their concealed fields.
        self._collections = {c.name: c for c in collections}
        self.schema = (
            *collection_ddl(ACTIVITY),
            *collection_ddl(REVISIONS),
            # An update's data is the item's previous revision with the changes applied.
            'CREATE INDEX IF NOT EXISTS "revisions_item"'
            ' ON "revisions" ("collection", "item", "id")',
            # Auditors list an item's activity.
            'CREATE INDEX IF NOT EXISTS "activity_item" ON "activity" ("collection", "item")',
        )

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Write the activity and revision rows of a batch of record events."""
        activity: list[tuple[Any, ...]] = []
        revisions: list[tuple[Any, ...]] = []
        # Each item's latest data in this batch, so that its updates need no lookup.
        latest: dict[tuple[str, str], dict[str, Any]] = {}
        for logged in events:
            change: Any = logged.event
            name, key = Record.split_id(change.originator_id)
            spec = self._collections.get(name)
            # The revision's data and delta, for a create or an update.
            revision: tuple[dict[str, Any], dict[str, Any]] | None = None
            if isinstance(change, Record.Created | Record.Recreated):
                action = "create"
                values = masked(spec, change.values)
                revision = values, values
            elif isinstance(change, Record.Updated):
                if name == "users" and set(change.changes) == _SIGN_IN_FIELDS:
                    action = "login"
                else:
                    action = "update"
                    delta = masked(spec, change.changes)
                    before = latest.get((name, key))
                    if before is None:
                        before = self._latest_data(conn, name, key)
                    revision = {**before, **delta}, delta
            else:
                action = "delete"
            activity.append(
                (
                    logged.position,
                    action,
                    change.actor,
                    change.at,
                    # Events stored before the address was kept have none.
                    getattr(change, "ip", None),
                    getattr(change, "user_agent", None),
                    name,
                    key,
                )
            )
            if revision is not None:
                data, delta = revision
                latest[(name, key)] = data
                revisions.append(
                    (logged.position, logged.position, name, key, _json(data), _json(delta))
                )
        conn.executemany(_insert(ACTIVITY.table, _ACTIVITY_COLUMNS), activity)
        conn.executemany(_insert(REVISIONS.table, _REVISION_COLUMNS), revisions)

    @staticmethod
    def _latest_data(conn: Connection, collection: str, item: str) -> dict[str, Any]:
        """The data of the item's newest revision written before this batch ({} if none)."""
        text = conn.fetchval(
            'SELECT "data" FROM "revisions" WHERE "collection" = ? AND "item" = ?'
            ' ORDER BY "id" DESC LIMIT 1',
            (collection, item),
        )
        if text is None:
            return {}
        stored: dict[str, Any] = orjson.loads(text) if isinstance(text, str | bytes) else text
        return stored


def _json(value: dict[str, Any]) -> str:
    return orjson.dumps(value).decode()
