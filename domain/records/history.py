"""The history of the platform records as collections: `activity` and `revisions`.

Both are read models of the record events (never written through the API): one
`activity` row per create, update, delete or sign-in, and for creates and updates one
`revisions` row with the record's values after the change (`data`) and what changed
(`delta`). Rows are keyed by the log position of their event, so the row of an event and
its revision share their id and a replay rebuilds the same rows.
"""

from collections.abc import Mapping
from typing import Any

from domain.collections.schema import Collection, Field, FieldType
from domain.collections.selection import CONCEALED, is_concealed

#: What an activity row says happened.
ACTIONS = ("create", "update", "delete", "login")

ACTIVITY = Collection(
    name="activity",
    primary_key="id",
    fields=(
        Field("id", FieldType.INTEGER, readonly=True),
        Field("action", FieldType.STRING, readonly=True, choices=ACTIONS),
        # A read-only collection: a user's deletion leaves the history that names them.
        Field("user", FieldType.UUID, readonly=True, relation="users"),
        Field("timestamp", FieldType.DATETIME, readonly=True),
        Field("ip", FieldType.STRING, readonly=True),
        Field("user_agent", FieldType.STRING, readonly=True),
        Field("collection", FieldType.STRING, readonly=True),
        Field("item", FieldType.STRING, readonly=True),
    ),
    read_only=True,
)

REVISIONS = Collection(
    name="revisions",
    primary_key="id",
    fields=(
        Field("id", FieldType.INTEGER, readonly=True),
        Field("activity", FieldType.INTEGER, readonly=True, relation="activity"),
        Field("collection", FieldType.STRING, readonly=True),
        Field("item", FieldType.STRING, readonly=True),
        Field("data", FieldType.JSON, readonly=True),
        Field("delta", FieldType.JSON, readonly=True),
    ),
    read_only=True,
)

#: The collections of the history, in the order their tables are made.
HISTORY_COLLECTIONS = (ACTIVITY, REVISIONS)


def masked(collection: Collection | None, values: Mapping[str, Any]) -> dict[str, Any]:
    """Values as the history shows them: concealed fields (password and token hashes,
    TFA secrets) that hold a value read as "**********". Without a collection (one the
    service no longer knows) the values are shown as they are."""
    if collection is None:
        return dict(values)
    shown = {}
    for name, value in values.items():
        field = collection.field(name)
        hidden = field is not None and is_concealed(field) and value is not None
        shown[name] = CONCEALED if hidden else value
    return shown
