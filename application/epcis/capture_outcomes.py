"""What capturing a document answers: its outcome, and the refusals it raises."""

from dataclasses import dataclass, field

from domain.epcis.violations import Violation


class InvalidDocument(Exception):
    """The document breaks the EPCIS 2.0 schema or the CBV rules; nothing was stored."""

    def __init__(self, violations: list[Violation]) -> None:
        super().__init__(f"{len(violations)} violation(s)")
        self.violations = violations


class CaptureLimitExceeded(Exception):
    """The document holds more events than this service captures in one request."""


class EventIdConflict(Exception):
    """Event IDs the document gives to content other than what is stored under them;
    nothing was stored (rollback)."""

    def __init__(self, conflicts: list[Violation]) -> None:
        super().__init__(
            "A resource with the provided identifier already exists: "
            + "; ".join(str(v) for v in conflicts)
        )
        self.conflicts = conflicts


@dataclass(frozen=True)
class Capturer:
    """Who captures: the user (None for the public) and their account (multi-tenant
    installations only)."""

    user: str | None
    account: str | None = None


@dataclass
class CaptureOutcome:
    """What a capture did."""

    capture_id: str
    events_received: int
    events_stored: int
    events_already_present: int
    events_rejected: int
    errors: list[Violation] = field(default_factory=list)
    #: New error declarations (counted apart from `events_stored`).
    declarations_stored: int = 0
    #: Vocabulary elements of the document's master data, stored with it.
    master_data_elements: int = 0
    visible: bool = True
    #: The IDs of the document's valid events (given, or their hashes), in document order.
    event_ids: list[str] = field(default_factory=list)

    @property
    def success(self) -> bool:
        """True when every event of the document is now in the repository."""
        return self.events_rejected == 0
