"""A claim on a value that must be unique in a collection, such as a user's e-mail.

The claim's identity is the value itself, so the event store refuses a second claim in
the same transaction that would store the second record: uniqueness holds even for two
requests at once, on every backend, without a constraint in a rebuildable read model.
"""

from eventsourcing.domain import event

from domain.aggregate import Aggregate


class ValueTaken(Exception):
    """Another record holds the value."""


class UniqueValue(Aggregate):
    """Who holds a unique value of a field; released when the holder lets it go."""

    @staticmethod
    def create_id(collection: str, field: str, value: str) -> str:
        """The store identity of the claim on this value."""
        return f"unique:{collection}:{field}:{value}"

    class Claimed(Aggregate.Created):
        """A record took the value."""

        collection: str
        field: str
        value: str
        holder: str

    class Released(Aggregate.Event):
        """The holder no longer has the value."""

    class Reclaimed(Aggregate.Event):
        """A record took a released value."""

        holder: str

    @event(Claimed)
    def __init__(self, collection: str, field: str, value: str, holder: str) -> None:
        self.holder: str | None = holder

    def claim(self, holder: str) -> None:
        """Take the value for `holder`; ValueTaken if someone else holds it."""
        if self.holder == holder:
            return
        if self.holder is not None:
            raise ValueTaken(self.id)
        self._reclaim(holder)

    @event(Reclaimed)
    def _reclaim(self, holder: str) -> None:
        self.holder = holder

    @event(Released)
    def release(self) -> None:
        """Let the value go."""
        self.holder = None
