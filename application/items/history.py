"""A record as it was at a moment of the past, rebuilt from its events."""

from datetime import UTC, datetime
from typing import Any

from domain.records.record import Record
from infrastructure.event_store import EventStore


def record_as_of(
    store: EventStore, collection: str, key: str, moment: datetime
) -> dict[str, Any] | None:
    """The values of the record `key` of `collection` as they were at `moment`, or None
    when it did not exist then (not created yet, or deleted and not created again).

    Applies the record's events whose time (`at`, millisecond precision) is at or before
    the moment; a naive moment is taken as UTC. Blocking: it reads the event store. The
    values are the stored ones, concealed fields included (password and token hashes):
    mask them (`domain.records.history.masked`) before they leave the service.
    """
    bound = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    values: dict[str, Any] | None = None
    for change in store.events_of(Record.create_id(collection, key)):
        at: Any = getattr(change, "at", None)
        if not isinstance(at, str) or datetime.fromisoformat(at) > bound:
            # A record's events are stored in the order they happened.
            break
        if isinstance(change, Record.Created | Record.Recreated):
            values = dict(change.values)
        elif isinstance(change, Record.Updated):
            if values is not None:
                values.update(change.changes)
        elif isinstance(change, Record.Deleted):
            values = None
    return values
