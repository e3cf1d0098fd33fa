"""A scan of a code through the Digital Link resolver: when, from where, what it read."""

from eventsourcing.domain import event

from domain.aggregate import Aggregate


class Scan(Aggregate):
    """One resolution of a scanned code; kept whether or not the code exists."""

    @staticmethod
    def create_id(scan: str) -> str:
        """The store identity of a scan (its id is a UUID)."""
        return f"scan:{scan}"

    class Recorded(Aggregate.Created):
        """A client resolved a code (`code` is None when no such code was generated)."""

        scan: str
        scanned: str
        type: str
        code: str | None
        product: str | None
        lot: str | None
        account: str | None
        at: str
        ip: str | None
        user_agent: str | None
        latitude: float | None
        longitude: float | None
        country: str | None

    @event(Recorded)
    def __init__(
        self,
        scan: str,
        scanned: str,
        type: str,
        code: str | None,
        product: str | None,
        lot: str | None,
        account: str | None,
        at: str,
        ip: str | None,
        user_agent: str | None,
        latitude: float | None,
        longitude: float | None,
        country: str | None,
    ) -> None:
        self.code = code
