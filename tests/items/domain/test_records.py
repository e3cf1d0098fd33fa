"""Records and unique-value claims: the events they produce."""

import pytest

from domain.records.record import Record, RecordDeleted
from domain.records.unique_value import UniqueValue, ValueTaken


def names(record: Record) -> list[str]:
    return [type(e).__name__ for e in record.collect_events()]


def test_a_record_is_identified_by_collection_and_key() -> None:
    record = Record("roles", "r1", {"id": "r1", "name": "Ops"}, "u1", "2026-01-01T00:00:00.000Z")
    assert record.id == "record:roles:r1"
    assert Record.split_id(record.id) == ("roles", "r1")


def test_keys_may_contain_colons() -> None:
    assert Record.split_id(Record.create_id("location", "urn:epc:id:sgln:1.2.3")) == (
        "location",
        "urn:epc:id:sgln:1.2.3",
    )


def test_an_update_records_only_the_fields_that_changed() -> None:
    record = Record("roles", "r1", {"id": "r1", "name": "Ops", "icon": "x"}, None, "t0")
    record.update({"name": "Ops", "icon": "y"}, "u2", "t1")
    events = list(record.collect_events())
    assert events[-1].changes == {"icon": "y"}  # type: ignore[attr-defined]
    assert events[-1].actor == "u2"  # type: ignore[attr-defined]


def test_an_update_that_changes_nothing_records_nothing() -> None:
    record = Record("roles", "r1", {"id": "r1", "name": "Ops"}, None, "t0")
    record.update({"name": "Ops"}, None, "t1")
    assert names(record) == ["Created"]


def test_a_deleted_record_cannot_change() -> None:
    record = Record("roles", "r1", {"id": "r1"}, None, "t0")
    record.delete(None, "t1")
    with pytest.raises(RecordDeleted):
        record.update({"name": "x"}, None, "t2")
    with pytest.raises(RecordDeleted):
        record.delete(None, "t2")


def test_a_deleted_key_can_be_used_again() -> None:
    record = Record("location", "L1", {"id": "L1", "name": "a"}, None, "t0")
    record.delete(None, "t1")
    record.recreate({"id": "L1", "name": "b"}, None, "t2")
    assert not record.deleted
    assert record.values == {"id": "L1", "name": "b"}
    assert names(record) == ["Created", "Deleted", "Recreated"]


def test_a_held_value_cannot_be_claimed_by_another_record() -> None:
    claim = UniqueValue("users", "email", "a@example.com", "u1")
    with pytest.raises(ValueTaken):
        claim.claim("u2")


def test_a_released_value_can_be_claimed_again() -> None:
    claim = UniqueValue("users", "email", "a@example.com", "u1")
    claim.release()
    claim.claim("u2")
    assert claim.holder == "u2"


def test_claiming_a_value_one_already_holds_changes_nothing() -> None:
    claim = UniqueValue("users", "email", "a@example.com", "u1")
    claim.claim("u1")
    assert [type(e).__name__ for e in claim.collect_events()] == ["Claimed"]
