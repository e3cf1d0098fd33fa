"""A captured EPCIS event: an immutable aggregate named by a digest of its event ID (and
account).

The standard's journal model keeps every record with one event ID: the event itself and
each error declaration about it, each with its own record time. They are the versions of
one aggregate, so the store itself refuses two writers giving the same version.
"""

from base64 import urlsafe_b64encode
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

from eventsourcing.domain import event
from eventsourcing.utils import get_topic

from domain.aggregate import Aggregate

#: Identities of events in stores made before 2026-11-27 (`CapturedEvent.legacy_id`):
#: the event ID itself, `epcis-event:<eventID>`; of an account, `epcis-event@<account>:<eventID>`.
ID_PREFIX = "epcis-event:"
ACCOUNT_ID_PREFIX = "epcis-event@"
#: Identities by digest (`CapturedEvent.create_id`): `e:<digest>`, of an account `e@<digest>`.
#: Their own prefixes, so no account's identity can equal a single-tenant one, and none
#: equals one of the older form.
DIGEST_PREFIX = "e:"
ACCOUNT_DIGEST_PREFIX = "e@"


class CapturedEvent(Aggregate):
    """The records of one event ID as clients captured them, with their record times.

    The first record is `Captured`; every later one (an error declaration, or the event
    itself after a declaration of it came first) is `AlsoCaptured`.
    """

    @staticmethod
    def create_id(event_id: str, account: str | None = None) -> str:
        """The store identity of the event with this EPCIS event ID (in this account): a
        128-bit digest of the two, 24 characters where the event ID alone is often 90,
        written in the log's row and again in its key."""
        named = event_id if account is None else f"{len(account)}:{account}:{event_id}"
        digest = urlsafe_b64encode(blake2b(named.encode(), digest_size=16).digest())
        prefix = DIGEST_PREFIX if account is None else ACCOUNT_DIGEST_PREFIX
        return prefix + digest.rstrip(b"=").decode()

    @staticmethod
    def legacy_id(event_id: str, account: str | None = None) -> str:
        """The identity stores made before digests gave the event: they keep using it."""
        if account is None:
            return ID_PREFIX + event_id
        return f"{ACCOUNT_ID_PREFIX}{account}:{event_id}"

    @dataclass(frozen=True)
    class Captured(Aggregate.Created):
        """An EPCIS event entered the repository."""

        event_id: str
        epcis_event: dict[str, Any]
        namespaces: dict[str, str]
        record_time: str
        capture_id: str

    @dataclass(frozen=True)
    class AlsoCaptured(Aggregate.Event):
        """Another record with the same event ID entered the repository: an error
        declaration, or the declared event itself after its declaration."""

        event_id: str
        epcis_event: dict[str, Any]
        namespaces: dict[str, str]
        record_time: str
        capture_id: str

        def apply(self, aggregate: Any) -> None:
            """Keep the record beside the earlier ones."""
            aggregate.records.append(self.epcis_event)

    @classmethod
    def captured(
        cls,
        event_id: str,
        epcis_event: dict[str, Any],
        namespaces: dict[str, str],
        record_time: str,
        capture_id: str,
        *,
        aggregate_id: str | None = None,
        version: int | None = None,
    ) -> "CapturedEvent.Captured | CapturedEvent.AlsoCaptured":
        """The event that records one capture of an event, without building the aggregate.

        A captured event never changes, so capture only needs to store this; building the
        aggregate object as well cost about a quarter of the time of storing it. `version`
        is the record's place among those with its identity (the first by default).
        """
        originator_id = aggregate_id or cls.create_id(event_id)
        if version is None or version == cls.INITIAL_VERSION:
            return cls.Captured(
                originator_id=originator_id,
                originator_version=cls.INITIAL_VERSION,
                timestamp=cls.Captured.create_timestamp(),
                originator_topic=_TOPIC,
                event_id=event_id,
                epcis_event=epcis_event,
                namespaces=namespaces,
                record_time=record_time,
                capture_id=capture_id,
            )
        return cls.AlsoCaptured(
            originator_id=originator_id,
            originator_version=version,
            timestamp=cls.AlsoCaptured.create_timestamp(),
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
        self.records: list[dict[str, Any]] = [epcis_event]


_TOPIC = get_topic(CapturedEvent)


def as_captured(epcis_event: dict[str, Any], event_id: str, record_time: str) -> dict[str, Any]:
    """The event as the repository returns it: the captured fields plus eventID and recordTime."""
    result = dict(epcis_event)
    result["eventID"] = event_id
    result["recordTime"] = record_time
    return result
