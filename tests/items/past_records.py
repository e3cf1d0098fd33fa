"""Records as an earlier version of the service stored them: changes appended to the log
without today's checks (a code no reference list holds any more, or never held)."""

from typing import Any

from application.service.runtime import Tracepoint
from domain.records.record import Record

#: When the past changes were made.
PAST = "2024-01-01T00:00:00.000Z"


async def stored_record(tracepoint: Tracepoint, collection: str, values: dict[str, Any]) -> None:
    """Append the creation of a record with these values (its key among them) to the log."""
    key = str(values["id"])
    record = Record(collection, key, values, None, PAST)
    await tracepoint.blocking.run(tracepoint.store.save, record)
    await tracepoint.blocking.run(tracepoint.projections.catch_up)


async def stored_change(
    tracepoint: Tracepoint, collection: str, key: str, changes: dict[str, Any]
) -> None:
    """Append a change of an existing record to the log."""
    record: Record = await tracepoint.blocking.run(
        tracepoint.store.get, Record.create_id(collection, key)
    )
    record.update(changes, None, PAST)
    await tracepoint.blocking.run(tracepoint.store.save, record)
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
