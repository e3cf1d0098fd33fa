"""A capture job: the record of one capture request and what became of it."""

from typing import Any, Literal

from eventsourcing.domain import event

from domain.aggregate import Aggregate

ErrorBehaviour = Literal["rollback", "proceed"]


class CaptureJob(Aggregate):
    """What one capture stored: counts, the error behaviour asked for, and any rejections.

    A capture is synchronous, so the job is recorded finished, in the same transaction
    as the events it stored.
    """

    @staticmethod
    def create_id(capture_id: str) -> str:
        """The store identity of the job with this capture ID."""
        return "capture-job:" + capture_id

    class Completed(Aggregate.Created):
        """A capture finished, successfully or with rejected events."""

        capture_id: str
        error_behaviour: ErrorBehaviour
        created_at: str
        finished_at: str
        events_received: int
        events_stored: int
        events_already_present: int
        events_rejected: int
        errors: list[dict[str, Any]]
        captured_by: str | None
        #: The capturing user's account (multi-tenant installations); events of earlier
        #: versions have none.
        account: str | None = None
        #: New error declarations, counted apart from `events_stored` (0 before they were).
        declarations_stored: int = 0

    @event(Completed)
    def __init__(
        self,
        capture_id: str,
        error_behaviour: ErrorBehaviour,
        created_at: str,
        finished_at: str,
        events_received: int,
        events_stored: int,
        events_already_present: int,
        events_rejected: int,
        errors: list[dict[str, Any]],
        captured_by: str | None,
        account: str | None = None,
        declarations_stored: int = 0,
    ) -> None:
        self.capture_id = capture_id
        self.error_behaviour = error_behaviour
        self.created_at = created_at
        self.finished_at = finished_at
        self.events_received = events_received
        self.events_stored = events_stored
        self.events_already_present = events_already_present
        self.events_rejected = events_rejected
        self.errors = errors
        self.captured_by = captured_by
        self.account = account
        self.declarations_stored = declarations_stored
