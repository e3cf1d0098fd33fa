"""What a projection is: domain events in, read-model rows out, in batches."""

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

from eventsourcing.utils import get_topic

from domain.collections.schema import Collection
from infrastructure.connection import Connection
from infrastructure.event_store import LoggedEvent
from projections.search_index import create_search_indexes, drop_search_indexes

#: A DDL statement: shared SQL, or one spelling per dialect (by `Dialect.name`) where the
#: backends keep a table differently; an empty spelling is no statement there.
Statement = str | Mapping[str, str]


def statement_text(statement: Statement) -> str:
    """The statement's whole text, every dialect's spelling (what its shape digest covers)."""
    if isinstance(statement, str):
        return statement
    return "\n".join(f"{name}: {sql}" for name, sql in sorted(statement.items()))


class ProjectionConflict(Exception):
    """What a runner wrote rests on what another transaction changed meanwhile (it moved
    a projection's position, or numbered the terms afresh): the rows are undone, and the
    events projected again from the log."""


class Projection(ABC):
    """Builds read-model tables from the events it follows.

    The runner calls `apply` with a batch of events and a connection whose transaction
    also records the projection's new position, so every event lands exactly once.
    """

    #: Unique name; keys the projection's position.
    name: str
    #: The domain event classes the projection follows.
    follows: tuple[type, ...]
    #: DDL statements creating the projection's tables and indexes (see `Statement`).
    schema: tuple[Statement, ...]
    #: Raised when the rows `apply` writes change while the DDL does not: it counts in
    #: the tables' shape, so an upgraded database rebuilds them from the log.
    revision: int = 0
    #: The tables it owns, dropped on replay.
    tables: tuple[str, ...]
    #: Collections whose tables this projection keeps, searched by `search`: their
    #: search indexes come and go with the tables.
    searched: tuple[Collection, ...] = ()

    @property
    def topics(self) -> tuple[str, ...]:
        """The event-store topics of the events this projection follows."""
        return tuple(get_topic(cls) for cls in self.follows)

    def create_tables(self, conn: Connection) -> None:
        """Create the tables (and search indexes) if they do not exist yet."""
        for statement in self.schema:
            sql = statement if isinstance(statement, str) else statement[conn.dialect.name]
            if sql:
                conn.execute(sql)
        create_search_indexes(conn, self.searched)

    def fill(self, conn: Connection) -> None:  # noqa: B027 - most projections keep nothing else
        """At every start, after `create_tables`: fill what the projection keeps that is
        not in the log (nothing, for most)."""

    def drop_tables(self, conn: Connection) -> None:
        """Drop every table the projection owns (and their search indexes)."""
        for table in self.tables:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        drop_search_indexes(conn, self.searched)

    @abstractmethod
    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Write the rows for a batch of events, oldest first."""
