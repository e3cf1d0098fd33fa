"""The integer keys of a collection (permissions, notifications), handed out once each.

Keys come from an aggregate in the event store, not from the read model, so two writers
at once cannot take the same key (the second fails on the sequence's version and tries
again), and the key of a deleted item is never given to a new one.
"""

from eventsourcing.domain import event

from domain.aggregate import Aggregate


class KeySequence(Aggregate):
    """The last integer key taken in a collection."""

    @staticmethod
    def create_id(collection: str) -> str:
        """The store identity of a collection's sequence."""
        return f"sequence:{collection}"

    class Started(Aggregate.Created):
        """Keys up to `last` were already taken when the sequence started."""

        collection: str
        last: int

    class Advanced(Aggregate.Event):
        """Keys up to `last` are taken."""

        last: int

    @event(Started)
    def __init__(self, collection: str, last: int) -> None:
        self.last = last

    def take(self) -> int:
        """The next key."""
        self._advance(self.last + 1)
        return self.last

    def cover(self, key: int) -> None:
        """A key chosen by the client: later keys come after it."""
        if key > self.last:
            self._advance(key)

    @event(Advanced)
    def _advance(self, last: int) -> None:
        self.last = last
