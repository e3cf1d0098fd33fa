"""The unit of work of a write: who makes it, and the aggregates it changes, saved together."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from domain.access.policies import Accountability
from infrastructure.event_store import EventStore

#: Looks at a batch's aggregates before they are saved; raises to refuse the batch.
Guard = Callable[[Iterable[Any]], None]


@dataclass(frozen=True)
class Origin:
    """Who makes a change, and from where: what every record event of it carries."""

    actor: str | None
    ip: str | None = None
    user_agent: str | None = None
    #: The account new items of tenant collections belong to.
    account: str | None = None

    @classmethod
    def of(cls, caller: Accountability) -> "Origin":
        """The origin of a caller's request."""
        return cls(caller.user, caller.ip, caller.user_agent, caller.account)


class UnitOfWork:
    """The aggregates one request changes, saved together."""

    def __init__(self, store: EventStore, origin: Origin, at: str, guard: Guard) -> None:
        self.store = store
        self.actor = origin.actor
        self.account = origin.account
        #: The rest of the origin, as keywords of the record events.
        self.where = {"ip": origin.ip, "user_agent": origin.user_agent}
        self.at = at
        self.aggregates: dict[str, Any] = {}
        self._missing: set[str] = set()
        self._guard = guard

    def load(self, aggregate_id: str) -> Any:
        """The aggregate as this batch first saw it; KeyError if it did not exist then.

        Absence is remembered too: a batch works on one view of the store, and the store
        refuses it at save time if another write got there first.
        """
        if aggregate_id in self._missing:
            raise KeyError(aggregate_id)
        if aggregate_id not in self.aggregates:
            try:
                self.aggregates[aggregate_id] = self.store.get(aggregate_id)
            except KeyError:
                self._missing.add(aggregate_id)
                raise
        return self.aggregates[aggregate_id]

    def add(self, aggregate: Any) -> None:
        """Take a new aggregate into the batch."""
        self._missing.discard(aggregate.id)
        self.aggregates[aggregate.id] = aggregate

    def save(self) -> int:
        """Save every aggregate of the batch at once; the log position of the save."""
        self._guard(self.aggregates.values())
        return self.store.save(*self.aggregates.values())

    def stored(self, aggregate_id: str) -> bool:
        """Whether the aggregate exists, as this batch sees the store."""
        try:
            self.load(aggregate_id)
        except KeyError:
            return False
        return True
