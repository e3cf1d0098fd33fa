"""A capture at the default event limit stores in one transaction on both backends."""

from application.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure.settings import Settings
from tests.epcis.documents import object_event


def test_ten_thousand_events_are_stored_in_one_save(settings: Settings) -> None:
    service = Tracepoint(settings)
    events = [
        CapturedEvent(
            event_id=f"urn:uuid:00000000-0000-4000-8000-{i:012d}",
            epcis_event=object_event(),
            namespaces={},
            record_time="2024-03-01T10:00:00.000Z",
            capture_id="big",
        )
        for i in range(10_000)
    ]
    saved = service.store.append(*events)
    assert len(saved) == 10_000
    assert [e.position for e in saved] == list(range(saved[0].position, saved[0].position + 10_000))
    service.close()
