"""A captured EPCIS event: an immutable aggregate named by its event ID."""

from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import event
from eventsourcing.utils import get_topic

from domain.aggregate import Aggregate

ID_PREFIX = "epcis-event:"


class CapturedEvent(Aggregate):
    """One EPCIS event as a client captured it, with the record time the repository gave it.

    Its identity is its event ID, so storing the same event twice is refused by the store.
    """

    @staticmethod
    def create_id(event_id: str) -> str:
        """The store identity of the event with this EPCIS event ID."""
        return ID_PREFIX + event_id

    @dataclass(frozen=True)
    class Captured(Aggregate.Created):
        """An EPCIS event entered the repository."""

        event_id: str
        epcis_event: dict[str, Any]
        namespaces: dict[str, str]
        record_time: str
        capture_id: str

    @classmethod
    def captured(
        cls,
        event_id: str,
        epcis_event: dict[str, Any],
        namespaces: dict[str, str],
        record_time: str,
        capture_id: str,
    ) -> "CapturedEvent.Captured":
        """The event that creates a captured event, without building the aggregate itself.

        A captured event never changes, so capture only needs to store this; building the
        aggregate object as well cost about a quarter of the time of storing it.
        """
        return cls.Captured(
            originator_id=ID_PREFIX + event_id,
            originator_version=cls.INITIAL_VERSION,
            timestamp=cls.Captured.create_timestamp(),
            originator_topic=_TOPIC,
            event_id=event_id,
            epcis_event=epcis_event,
            namespaces=namespaces,
            record_time=record_time,
            capture_id=capture_id,
        )

    @event(Captured)
    def __init__(
        self,
        event_id: str,
        epcis_event: dict[str, Any],
        namespaces: dict[str, str],
        record_time: str,
        capture_id: str,
    ) -> None:
        self.event_id = event_id
        # The prefixes its extensions use, from the capture document's @context.
        self.namespaces = namespaces
        self.epcis_event = epcis_event
        self.record_time = record_time
        self.capture_id = capture_id


_TOPIC = get_topic(CapturedEvent)


def as_captured(epcis_event: dict[str, Any], event_id: str, record_time: str) -> dict[str, Any]:
    """The event as the repository returns it: the captured fields plus eventID and recordTime."""
    result = dict(epcis_event)
    result["eventID"] = event_id
    result["recordTime"] = record_time
    return result
