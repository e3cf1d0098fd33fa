"""A capture at the default event limit stores in one transaction on both backends."""

from collections.abc import Iterator

import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure.event_store import DuplicateAggregate
from infrastructure.settings import Settings
from tests.epcis.documents import object_event


@pytest.fixture
def service(settings: Settings) -> Iterator[Tracepoint]:
    """The service's parts, not started: the test writes to its event store directly."""
    made = Tracepoint(settings)
    try:
        yield made
    finally:
        made.close()


def ten_thousand() -> list[CapturedEvent]:
    """One capture's worth of new events, with known event IDs."""
    return [
        CapturedEvent(
            event_id=f"urn:uuid:00000000-0000-4000-8000-{i:012d}",
            epcis_event=object_event(),
            namespaces={},
            record_time="2024-03-01T10:00:00.000Z",
            capture_id="big",
        )
        for i in range(10_000)
    ]


def test_ten_thousand_events_are_stored_in_one_save(service: Tracepoint) -> None:
    events = ten_thousand()
    saved = service.store.append(*events)
    assert len(saved) == 10_000
    assert [e.position for e in saved] == list(range(saved[0].position, saved[0].position + 10_000))
    assert [e.event.originator_id for e in saved] == [e.id for e in events]
    assert service.store.max_position() == saved[-1].position
    assert service.store.existing_ids([e.id for e in events]) == {e.id for e in events}


def test_a_ten_thousand_event_save_failing_at_its_last_event_stores_none_of_them(
    service: Tracepoint,
) -> None:
    # The capture's last event is stored already, so its save fails at the very end.
    [last] = service.store.append(*ten_thousand()[-1:])
    with pytest.raises(DuplicateAggregate):
        service.store.append(*ten_thousand())
    assert service.store.max_position() == last.position
    stored = [
        e.event.originator_id
        for e in service.store.read(after=0, limit=20_000)
        if isinstance(e.event, CapturedEvent.Captured)
    ]
    assert stored == [last.event.originator_id]
