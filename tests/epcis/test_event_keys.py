"""Events are found by ID through a 64-bit key of it, and told apart by the ID itself
when two IDs share a key (projections/epcis/event_keys.py)."""

import pytest

from projections.epcis import event_reader, events
from projections.epcis.event_keys import event_key
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import Client, capture
from tests.epcis.test_capture import events as found_events


def test_an_event_id_has_one_key_and_other_ids_others() -> None:
    first = "ni:///sha-256;" + "0" * 64 + "?ver=CBV2.0"
    assert event_key(first) == event_key(first)
    assert event_key(first) != event_key(first.replace("0", "1", 1))
    assert -(2**63) <= event_key(first) < 2**63


async def test_ids_of_one_key_are_told_apart(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    for module in (events, event_reader):
        monkeypatch.setattr(module, "event_key", lambda _: 7)
    first, second = object_event(eventID="urn:uuid:1"), object_event(eventID="urn:uuid:2")
    assert (await capture(client, document(first, second))).status == 201
    assert [e["eventID"] for e in await found_events(client, EQ_eventID="urn:uuid:2")] == [
        "urn:uuid:2"
    ]


async def test_an_event_is_found_by_its_id(client: Client) -> None:
    wanted = object_event(eventID="urn:uuid:3")
    await capture(client, document(object_event(eventID="urn:uuid:4"), wanted))
    assert [e["eventID"] for e in await found_events(client, EQ_eventID="urn:uuid:3")] == [
        "urn:uuid:3"
    ]
