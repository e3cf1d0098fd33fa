"""Capturing one event sent alone (`POST /v2/epcis/events`): a one-event capture that
stores it or nothing."""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.epcis.capture import CaptureService
from application.epcis.capture_outcomes import EventIdConflict, InvalidDocument
from domain.epcis.single_event import event_document, in_event, shape_violation
from domain.epcis.timestamps import format_record_time


@dataclass(frozen=True)
class EventCaptured:
    """The captured event's ID, and whether it is new (False: it was stored already)."""

    event_id: str
    new: bool


class EventCaptureService:
    """The use case behind `POST /v2/epcis/events`."""

    def __init__(self, capture: CaptureService) -> None:
        self._capture = capture

    async def capture(
        self, event: Any, captured_by: str | None, account: str | None = None
    ) -> EventCaptured:
        """Store `event` (or its error declaration). Raises InvalidDocument, or
        EventIdConflict when its ID names an event with other content; the violations
        are placed in the event as sent."""
        refused = shape_violation(event)
        if refused is not None:
            raise InvalidDocument([refused])
        created = format_record_time(datetime.now(UTC))
        try:
            outcome = await self._capture.capture(
                event_document(event, created), "rollback", captured_by, account
            )
        except InvalidDocument as exc:
            raise InvalidDocument(in_event(exc.violations)) from exc
        except EventIdConflict as exc:
            raise EventIdConflict(in_event(exc.conflicts)) from exc
        new = outcome.events_stored + outcome.declarations_stored > 0
        return EventCaptured(outcome.event_ids[0], new)
