"""Events read from their log entries are what queries returned when the query tables
kept a copy: the captured event with its eventID and recordTime, byte for byte."""

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.epcis.captured_event import CapturedEvent, as_captured
from infrastructure.orjson_transcoder import OrjsonTranscoder
from projections.epcis.stored_documents import logged_event_id, stored_document
from tests.epcis.documents import object_event

TRANSCODER = OrjsonTranscoder()


def entry_state(event: dict[str, Any], event_id: str, namespaces: dict[str, str]) -> bytes:
    """The state of the log entry eventsourcing's mapper writes for this event."""
    captured = CapturedEvent.captured(
        event_id, event, namespaces, "2024-03-01T10:00:00.123456Z", "capture-1"
    )
    state = dict(vars(captured))
    state.pop("originator_id")
    state.pop("originator_version")
    return TRANSCODER.encode(state)


def as_kept_before(
    event: dict[str, Any], event_id: str, namespaces: dict[str, str]
) -> tuple[str, str | None]:
    document = as_captured(event, event_id, "2024-03-01T10:00:00.123456Z")
    return orjson.dumps(document).decode(), orjson.dumps(
        namespaces
    ).decode() if namespaces else None


@pytest.mark.parametrize(
    ("event", "event_id"),
    [
        (object_event(), "ni:///sha-256;abc?ver=CBV2.0"),
        (object_event(eventID="urn:uuid:1"), "urn:uuid:1"),
        (object_event(eventID=""), "ni:///sha-256;abc?ver=CBV2.0"),
        (object_event(recordTime="2020-01-01T00:00:00Z"), "urn:uuid:2"),
        (object_event(**{"ex:x": {"eventID": "urn:uuid:3"}}), "urn:uuid:4"),
        (object_event(**{"ex:epcis_event": {"namespaces": {"a": "b"}}}), "urn:uuid:5"),
    ],
    ids=["hash-named", "own-id", "empty-id", "own-record-time", "nested-id", "marks-inside"],
)
def test_a_stored_event_reads_as_the_captured_event_with_its_id_and_record_time(
    event: dict[str, Any], event_id: str
) -> None:
    namespaces = {"ex": "https://example.com/", "namespaces": "https://n.example/"}
    state = entry_state(event, event_id, namespaces)
    assert stored_document(state) == as_kept_before(event, event_id, namespaces)
    assert logged_event_id(state) == event_id


def test_an_event_of_a_document_that_bound_no_prefix_has_none() -> None:
    event = object_event()
    assert stored_document(entry_state(event, "urn:uuid:1", {}))[1] is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(
    extra=st.dictionaries(st.text(), json_values, max_size=4),
    event_id=st.text(min_size=1),
    namespaces=st.dictionaries(st.text(), st.text(), max_size=3),
)
def test_any_event_reads_back_as_it_was_kept(
    extra: dict[str, Any], event_id: str, namespaces: dict[str, str]
) -> None:
    event = {**object_event(), **extra}
    state = entry_state(event, event_id, namespaces)
    assert stored_document(state) == as_kept_before(event, event_id, namespaces)
    assert logged_event_id(state) == event_id
