"""Checks on the values clients write into collections."""

import pytest

from domain.access.collections import NOTIFICATIONS, PERMISSIONS, USERS
from domain.collections.payload import PayloadError, check_payload, missing_required
from domain.collections.schema import Collection, Field, FieldType


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(PayloadError, match='"nickname" is not a field of "users"'):
        check_payload(USERS, {"nickname": "x"})


def test_a_read_only_field_is_refused() -> None:
    with pytest.raises(PayloadError, match='can\'t change the "tfa_secret" value manually'):
        check_payload(USERS, {"tfa_secret": "ABC"})


def test_a_payload_must_be_an_object() -> None:
    with pytest.raises(PayloadError, match="JSON object"):
        check_payload(USERS, ["x"])


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("email_notifications", "yes"),
        ("id", "not-a-uuid"),
        ("first_name", 12),
        ("status", "sleeping"),
        ("last_page", "a\x00b"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused(field: str, value: object) -> None:
    with pytest.raises(PayloadError, match=f'"{field}"'):
        check_payload(USERS, {field: value})


def test_integers_refuse_booleans_and_unsafe_sizes() -> None:
    for value in (True, 2**60, 1.5):
        with pytest.raises(PayloadError):
            check_payload(NOTIFICATIONS, {"id": value})


def test_uuids_are_normalised() -> None:
    values = check_payload(USERS, {"role": "6F9619FF-8B86-D011-B42D-00C04FC964FF"})
    assert values["role"] == "6f9619ff-8b86-d011-b42d-00c04fc964ff"


EVENTS = Collection(
    "meetings", "id", (Field("id", FieldType.UUID), Field("starts", FieldType.DATETIME))
)


def test_date_times_are_stored_in_utc_with_milliseconds() -> None:
    values = check_payload(EVENTS, {"starts": "2026-01-02T03:04:05.678+02:00"})
    assert values == {"starts": "2026-01-02T01:04:05.678Z"}


def test_a_date_time_without_an_offset_is_taken_as_utc() -> None:
    assert check_payload(EVENTS, {"starts": "2026-01-02T03:04:05"}) == {
        "starts": "2026-01-02T03:04:05.000Z"
    }


def test_a_malformed_date_time_is_refused() -> None:
    with pytest.raises(PayloadError, match="ISO 8601"):
        check_payload(EVENTS, {"starts": "yesterday"})


def test_null_in_a_required_field_is_refused() -> None:
    with pytest.raises(PayloadError, match='"collection" can\'t be null'):
        check_payload(PERMISSIONS, {"collection": None})


def test_a_new_item_lacking_a_required_field_is_named() -> None:
    assert missing_required(PERMISSIONS, {"policy": "p", "collection": "roles"}) == "action"
    assert (
        missing_required(PERMISSIONS, {"policy": "p", "collection": "c", "action": "read"}) is None
    )


def test_aliases_the_collection_writes_itself_pass_through() -> None:
    values = check_payload(USERS, {"policies": [{"policy": "x"}]})
    assert values == {"policies": [{"policy": "x"}]}
