"""Base classes for Tracepoint's aggregates: text identities, immutable domain events."""

from dataclasses import dataclass
from datetime import datetime

from eventsourcing.domain import (
    BaseAggregate,
    CanCreateTimestamp,
    CanInitAggregate,
    CanMutateAggregate,
    MetaDomainEvent,
)


@dataclass(frozen=True)
class DomainEvent(CanCreateTimestamp, metaclass=MetaDomainEvent):
    """An immutable fact about one aggregate, identified by a text id."""

    originator_id: str
    originator_version: int
    timestamp: datetime


class Aggregate(BaseAggregate[str]):
    """An event-sourced aggregate whose identity is text.

    Text ids let an EPCIS event be stored under its own event ID, so the store itself
    refuses a second copy of the same event. Each subclass prefixes ids with its kind.
    """

    @dataclass(frozen=True)
    class Event(DomainEvent, CanMutateAggregate[str]):
        """An event that changes an existing aggregate."""

    @dataclass(frozen=True)
    class Created(Event, CanInitAggregate[str]):
        """The event that starts an aggregate."""

        originator_topic: str
