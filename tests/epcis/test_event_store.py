"""A captured event stored as its creation event alone is the same aggregate."""

import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure.event_store import DuplicateAggregate
from infrastructure.settings import Settings
from tests.epcis.documents import object_event

EVENT_ID = "urn:uuid:00000000-0000-4000-8000-000000000001"


def test_the_creation_event_alone_rebuilds_the_same_aggregate(settings: Settings) -> None:
    service = Tracepoint(settings)
    event = object_event()
    service.store.save(
        CapturedEvent.captured(
            EVENT_ID, event, {"ex": "https://ex.com/"}, "2024-03-01T10:00:00.000Z", "c1"
        )
    )
    stored = service.store.get(CapturedEvent.create_id(EVENT_ID))
    built = CapturedEvent(
        EVENT_ID, event, {"ex": "https://ex.com/"}, "2024-03-01T10:00:00.000Z", "c1"
    )
    assert type(stored) is CapturedEvent
    assert stored.id == built.id
    assert stored.version == built.version == 1
    assert (stored.event_id, stored.epcis_event, stored.namespaces) == (
        built.event_id,
        built.epcis_event,
        built.namespaces,
    )
    assert (stored.record_time, stored.capture_id) == (built.record_time, built.capture_id)
    service.close()


def test_a_second_creation_event_for_the_same_id_is_refused(settings: Settings) -> None:
    service = Tracepoint(settings)
    first = CapturedEvent.captured(EVENT_ID, object_event(), {}, "2024-03-01T10:00:00.000Z", "c1")
    again = CapturedEvent.captured(EVENT_ID, object_event(), {}, "2024-03-01T10:00:01.000Z", "c2")
    service.store.save(first)
    with pytest.raises(DuplicateAggregate):
        service.store.save(again)
    assert service.store.max_position() == 1
    service.close()
