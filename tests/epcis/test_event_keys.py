"""Events are found by ID through a 64-bit key of it, and told apart by a second 64 bits
of its hash when two IDs share a key; a corrective ID named by its hash is kept shorter,
one to one (projections/epcis/event_keys.py)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from projections.epcis import event_conditions, events
from projections.epcis.event_keys import event_id_of, event_keys, stored_event_id
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import Client, capture
from tests.epcis.test_capture import events as found_events


def test_an_event_id_has_one_key_and_check_and_other_ids_others() -> None:
    first = "ni:///sha-256;" + "0" * 64 + "?ver=CBV2.0"
    assert event_keys(first) == event_keys(first)
    other = event_keys(first.replace("0", "1", 1))
    assert other[0] != event_keys(first)[0]
    assert other[1] != event_keys(first)[1]
    assert all(-(2**63) <= half < 2**63 for half in event_keys(first))


async def test_ids_of_one_key_are_told_apart(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The key of every ID is 7; their checks are their own.
    for module in (events, event_conditions):
        monkeypatch.setattr(module, "event_keys", lambda event_id: (7, event_keys(event_id)[1]))
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


HASH_ID = "ni:///sha-256;" + "0123456789abcdef" * 4 + "?ver=CBV2.0"


def test_an_id_named_by_its_hash_is_kept_in_44_characters() -> None:
    assert len(stored_event_id(HASH_ID)) == 44
    assert event_id_of(stored_event_id(HASH_ID)) == HASH_ID


@given(st.text(alphabet="#ni:/sha-256;0af?verCB.", max_size=12) | st.just(HASH_ID))
def test_every_id_reads_back_as_it_was_kept(event_id: str) -> None:
    assert event_id_of(stored_event_id(event_id)) == event_id


def test_ids_that_look_like_the_short_form_are_kept_apart() -> None:
    short = stored_event_id(HASH_ID)
    assert stored_event_id(short) != short
    assert event_id_of(stored_event_id(short)) == short


async def test_an_event_named_by_its_hash_is_found_by_it(client: Client) -> None:
    await capture(client, document(object_event(), object_event()))
    named = (await found_events(client))[1]["eventID"]
    assert [e["eventID"] for e in await found_events(client, EQ_eventID=named)] == [named]
