"""What a projection is: domain events in, read-model rows out, in batches."""

from abc import ABC, abstractmethod
from collections.abc import Sequence

from eventsourcing.utils import get_topic

from infrastructure.database import Connection
from infrastructure.event_store import LoggedEvent


class Projection(ABC):
    """Builds read-model tables from the events it follows.

    The runner calls `apply` with a batch of events and a connection whose transaction
    also records the projection's new position, so every event lands exactly once.
    """

    #: Unique name; keys the projection's position.
    name: str
    #: The domain event classes the projection follows.
    follows: tuple[type, ...]
    #: DDL statements creating the projection's tables and indexes (shared SQL).
    schema: tuple[str, ...]
    #: The tables it owns, dropped on replay.
    tables: tuple[str, ...]
    #: Tables made before shapes were recorded are kept as they are (set only where
    #: the DDL has not changed since, and a rebuild would be long).
    first_shape_trusted: bool = False

    @property
    def topics(self) -> tuple[str, ...]:
        """The event-store topics of the events this projection follows."""
        return tuple(get_topic(cls) for cls in self.follows)

    def create_tables(self, conn: Connection) -> None:
        """Create the tables if they do not exist yet."""
        for statement in self.schema:
            conn.execute(statement)

    def drop_tables(self, conn: Connection) -> None:
        """Drop every table the projection owns."""
        for table in self.tables:
            conn.execute(f"DROP TABLE IF EXISTS {table}")

    @abstractmethod
    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Write the rows for a batch of events, oldest first."""
