"""Records the service itself reads and changes, outside any request: the state of jobs,
reservations, flows and subscriptions, kept by background work."""

from typing import Any

from domain.records.record import Record
from infrastructure.event_store import DuplicateAggregate, EventStore

#: Attempts at a change that lost a race with another writer of the same record.
_ATTEMPTS = 10


def live_record(store: EventStore, collection: str, key: Any) -> Record | None:
    """The record as its events leave it; None when there is none or it was deleted."""
    if key is None or key == "":
        return None
    try:
        record: Record = store.get(Record.create_id(collection, str(key)))
    except KeyError:
        return None
    return None if record.deleted else record


def change_record(
    store: EventStore, collection: str, key: Any, changes: dict[str, Any], at: str, *also: Any
) -> bool:
    """Give a live record these values (as the service, at `at`), saved with the `also`
    aggregates in one transaction; read again and retried when another writer changed it
    meanwhile. False when the record is gone."""
    for _ in range(_ATTEMPTS):
        record = live_record(store, collection, key)
        if record is None:
            return False
        record.update(changes, None, at)
        try:
            store.save(record, *also)
        except DuplicateAggregate:
            continue
        return True
    raise DuplicateAggregate(f"{collection} {key} kept changing")
