"""A record of a platform collection: created, updated and deleted through domain events.

Every change names the acting user, the time, the client's address and user agent (when
the request had them) and exactly the fields it changed, so an auditor can read from the
log who granted whom what, and when.
"""

from typing import Any

from eventsourcing.domain import event

from domain.aggregate import Aggregate

Values = dict[str, Any]


class RecordDeleted(Exception):
    """The record was deleted; it cannot change until it is created again."""


class Record(Aggregate):
    """One item of a collection (a user, a role, a permission, a product...).

    Values are held in the API's own form (booleans, numbers, JSON objects, ISO 8601
    strings); secrets arrive already hashed. A deleted record keeps its history, and a
    later create with the same key starts it anew.
    """

    @staticmethod
    def create_id(collection: str, key: str) -> str:
        """The store identity of the record with this primary key in this collection."""
        return f"record:{collection}:{key}"

    @staticmethod
    def split_id(aggregate_id: str) -> tuple[str, str]:
        """The collection and primary key (as text) of a record's store identity."""
        _, collection, key = aggregate_id.split(":", 2)
        return collection, key

    class Created(Aggregate.Created):
        """A record was created with these values."""

        collection: str
        key: str
        values: Values
        actor: str | None
        at: str
        # Where the request came from. Events stored before these were kept have no such
        # entry; the class default (None) answers for them when they are loaded.
        ip: str | None = None
        user_agent: str | None = None

    class Updated(Aggregate.Event):
        """These fields of the record changed to these values."""

        changes: Values
        actor: str | None
        at: str
        ip: str | None = None
        user_agent: str | None = None

    class Deleted(Aggregate.Event):
        """The record was removed."""

        actor: str | None
        at: str
        ip: str | None = None
        user_agent: str | None = None

    class Recreated(Aggregate.Event):
        """A deleted record's key was used again for a new record with these values."""

        values: Values
        actor: str | None
        at: str
        ip: str | None = None
        user_agent: str | None = None

    @event(Created)
    def __init__(
        self,
        collection: str,
        key: str,
        values: Values,
        actor: str | None,
        at: str,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        self.collection = collection
        self.key = key
        self.values = dict(values)
        self.deleted = False

    def update(
        self,
        changes: Values,
        actor: str | None,
        at: str,
        *,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        """Change some fields; fields whose value stays the same are left out of the event."""
        if self.deleted:
            raise RecordDeleted(self.id)
        changed = {k: v for k, v in changes.items() if self.values.get(k, None) != v}
        if changed:
            self._update(changed, actor, at, ip=ip, user_agent=user_agent)

    @event(Updated)
    def _update(
        self,
        changes: Values,
        actor: str | None,
        at: str,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        self.values.update(changes)

    def delete(
        self, actor: str | None, at: str, *, ip: str | None = None, user_agent: str | None = None
    ) -> None:
        """Remove the record."""
        if self.deleted:
            raise RecordDeleted(self.id)
        self._delete(actor, at, ip=ip, user_agent=user_agent)

    @event(Deleted)
    def _delete(
        self, actor: str | None, at: str, ip: str | None = None, user_agent: str | None = None
    ) -> None:
        self.deleted = True

    @event(Recreated)
    def recreate(
        self,
        values: Values,
        actor: str | None,
        at: str,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        """Create a new record under the key of a deleted one."""
        self.values = dict(values)
        self.deleted = False
