"""A captured event is stored under a digest of its event ID; a store whose events were
stored under the event ID itself keeps naming them so (application/epcis/captured_identities.py)."""

from pathlib import Path

from eventsourcing.utils import get_topic

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from tests.conftest import make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_event_identity import OLD_IDS, restore_old_store
from tests.fixtures.upgrade.make_store import event as old_event

TOPICS = [get_topic(CapturedEvent.Captured), get_topic(CapturedEvent.AlsoCaptured)]


def stored_identities(service: Tracepoint) -> list[str]:
    return [e.event.originator_id for e in service.store.read(0, 100, topics=TOPICS)]


async def captured(service: Tracepoint, *events: dict[str, object]) -> tuple[int, int]:
    outcome = await service.epcis.capture.capture(document(*events), "rollback", None)
    return outcome.events_stored, outcome.events_already_present


def test_an_identity_is_a_short_digest_apart_for_each_account() -> None:
    event_id = "ni:///sha-256;" + "a" * 64 + "?ver=CBV2.0"
    wide, own, other = (CapturedEvent.create_id(event_id, a) for a in (None, "a1", "a2"))
    assert [wide[:2], own[:2], other[:2]] == ["e:", "e@", "e@"]
    assert len({wide, own, other}) == 3
    assert len(wide) == 24
    assert CapturedEvent.create_id(event_id) == wide


async def test_a_new_store_names_captured_events_by_digest(tracepoint: Tracepoint) -> None:
    event = object_event(eventID="urn:uuid:5")
    assert await captured(tracepoint, event) == (1, 0)
    assert stored_identities(tracepoint) == [CapturedEvent.create_id("urn:uuid:5")]
    assert await captured(tracepoint, event) == (0, 1)


async def test_a_store_whose_events_are_named_by_event_id_names_new_ones_so(
    database_url: str, tmp_path: Path
) -> None:
    restore_old_store(database_url, tmp_path)
    service = Tracepoint(make_settings(database_url))
    await service.start()
    try:
        assert await captured(service, old_event(1, eventID=OLD_IDS[0])) == (0, 1)
        assert await captured(service, old_event(7, eventID="urn:uuid:7")) == (1, 0)
        assert stored_identities(service)[-1] == CapturedEvent.legacy_id("urn:uuid:7")
    finally:
        await service.stop()


async def test_the_form_is_found_again_in_the_log_when_the_setting_is_lost(
    database_url: str, tmp_path: Path
) -> None:
    settings = make_settings(database_url)
    first = Tracepoint(settings)
    await first.start()
    event = object_event(eventID="urn:uuid:8")
    try:
        assert await captured(first, event) == (1, 0)
        with first.database.transaction() as conn:
            conn.execute("DELETE FROM tracepoint_instance WHERE key = 'captured_event_identities'")
    finally:
        await first.stop()
    again = Tracepoint(settings)
    await again.start()
    try:
        assert await captured(again, event) == (0, 1)
    finally:
        await again.stop()
