"""The log stores captured events under short topics and reads rows under either topic
(infrastructure/log_topics.py)."""

import pytest
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure import log_topics
from infrastructure.log_topics import SHORT_TOPICS, stored_topics
from infrastructure.settings import Settings
from tests.epcis.documents import object_event


def test_every_shortened_topic_names_a_class() -> None:
    for topic in SHORT_TOPICS:
        assert get_topic(resolve_topic(topic)) == topic


def test_a_class_is_looked_for_under_both_topics() -> None:
    full = get_topic(CapturedEvent.Captured)
    assert stored_topics([full, "other:Topic"]) == [full, "other:Topic", "captured"]


def _stored_topics(service: Tracepoint) -> list[str]:
    recorder = service.store._app.recorder
    return [n.topic for n in recorder.select_notifications(start=1, limit=100)]


def test_a_captured_event_is_stored_under_its_short_topic(settings: Settings) -> None:
    service = Tracepoint(settings)
    service.store.save(CapturedEvent.captured("urn:uuid:1", object_event(), {}, "t", "c1"))
    assert _stored_topics(service)[-1] == "captured"
    service.close()


def test_a_row_under_the_module_path_is_read_as_before(settings: Settings) -> None:
    service = Tracepoint(settings)
    event = CapturedEvent.captured("urn:uuid:2", object_event(), {}, "t", "c1")
    mapper = service.store._app.mapper
    stored = mapper.to_stored_event(event)
    old = StoredEvent(
        stored.originator_id, stored.originator_version, get_topic(type(event)), stored.state
    )
    assert mapper.to_domain_event(old).__dict__ == mapper.to_domain_event(stored).__dict__
    service.close()


def _captured(count: int) -> list[CapturedEvent]:
    return [
        CapturedEvent.captured(f"urn:uuid:{n}", object_event(), {}, "t", "c1") for n in range(count)
    ]


def test_events_stored_together_are_stored_as_each_alone(settings: Settings) -> None:
    service = Tracepoint(settings)
    mapper = service.store._app.mapper
    events = _captured(3)
    assert mapper.to_stored_events(events) == [mapper.to_stored_event(e) for e in events]
    assert {stored.topic for stored in mapper.to_stored_events(events)} == {"captured"}
    service.close()


def test_events_stored_together_in_parts_are_stored_as_each_alone(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(log_topics, "_COMPRESSED_TOGETHER", 2)
    service = Tracepoint(settings)
    mapper = service.store._app.mapper
    events = _captured(5)
    assert mapper.to_stored_events(events) == [mapper.to_stored_event(e) for e in events]
    service.close()
