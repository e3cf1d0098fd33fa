"""Named queries stored before they were `epcis_queries` records become records once."""

from typing import Any

from eventsourcing.utils import get_topic

from domain.epcis.named_query import NamedQuery
from domain.masterdata.epcis_queries import EPCIS_QUERIES
from domain.records.record import Record
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.instance_store import InstanceStore

_DONE = "named-queries-are-records"
_TOPICS = tuple(
    get_topic(kind) for kind in (NamedQuery.Defined, NamedQuery.Redefined, NamedQuery.Deleted)
)


def migrate_named_queries(store: EventStore, instance: InstanceStore, batch: int = 1000) -> int:
    """Give every named query that still exists as a legacy aggregate its record (same
    name, parameters, author and time); returns how many were made. Runs once."""
    if instance.get(_DONE) is not None:
        return 0
    current: dict[str, tuple[Any, str | None, str] | None] = {}
    after = 0
    while events := store.read(after, batch, topics=_TOPICS):
        for logged in events:
            change: Any = logged.event
            name = change.originator_id.removeprefix("epcis-query:")
            if isinstance(change, NamedQuery.Deleted):
                current[name] = None
            else:
                current[name] = (change.query, change.defined_by, change.defined_at)
        after = events[-1].position
    living = {name: state for name, state in current.items() if state is not None}
    ids = {name: Record.create_id(EPCIS_QUERIES.name, name) for name in living}
    taken = store.existing_ids(list(ids.values()))
    made = 0
    for name, (query, author, at) in living.items():
        if ids[name] in taken:
            continue
        values = {"query": query, "user_created": author, "date_created": at}
        try:
            store.save(Record(EPCIS_QUERIES.name, name, values, author, at))
            made += 1
        except DuplicateAggregate:
            # Another process starting at the same time made it.
            pass
    instance.get_or_create(_DONE, "done")
    return made
