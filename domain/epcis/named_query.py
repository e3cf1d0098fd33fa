"""A named EPCIS query: stored parameters that can be run again by name."""

from eventsourcing.domain import event

from domain.aggregate import Aggregate

QueryParameters = dict[str, list[str]]


class NamedQuery(Aggregate):
    """A saved set of EPCIS query parameters (each value a list), addressed by its name.

    Deleting keeps the history; a later definition under the same name starts it anew.
    """

    @staticmethod
    def create_id(name: str) -> str:
        """The store identity of the query with this name."""
        return "epcis-query:" + name

    class Defined(Aggregate.Created):
        """A query was stored under a new name."""

        name: str
        query: QueryParameters
        defined_by: str | None
        defined_at: str

    class Deleted(Aggregate.Event):
        """The query was removed."""

        deleted_by: str | None
        deleted_at: str

    class Redefined(Aggregate.Event):
        """A deleted query's name was defined again."""

        query: QueryParameters
        defined_by: str | None
        defined_at: str

    @event(Defined)
    def __init__(
        self, name: str, query: QueryParameters, defined_by: str | None, defined_at: str
    ) -> None:
        self.name = name
        self.query = query
        self.defined_by = defined_by
        self.defined_at = defined_at
        self.deleted = False

    @event(Deleted)
    def delete(self, deleted_by: str | None, deleted_at: str) -> None:
        """Remove the query; its name becomes free again."""
        self.deleted = True

    @event(Redefined)
    def redefine(self, query: QueryParameters, defined_by: str | None, defined_at: str) -> None:
        """Define a deleted query's name again, with new parameters."""
        self.query = query
        self.defined_by = defined_by
        self.defined_at = defined_at
        self.deleted = False
