"""The log keeps each entry's JSON compressed with a preset dictionary, and reads back
exactly the JSON it was given, also from entries written before compression."""

import hashlib
import secrets
from collections.abc import Iterator

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from infrastructure.log_compression import (
    DICTIONARY_1,
    TrainedDictionary,
    UnknownDictionary,
    add_lookup,
    compressed,
    compressed_many,
    decompressed,
    learn,
    remove_lookup,
)
from infrastructure.log_dictionaries import train

#: A captured event's entry as eventsourcing's mapper writes it (before compression).
ENTRY = orjson.dumps(
    {
        "timestamp": {"_type_": "datetime_iso", "_data_": "2026-11-27T11:02:11.215465+00:00"},
        "originator_topic": "domain.epcis.captured_event:CapturedEvent",
        "event_id": "ni:///sha-256;029d41bcb1fed8b0ed0eb6f3e4e381af5bee8f8a96a7ff64160a9a6916133d47"
        "?ver=CBV2.0",
        "epcis_event": {
            "type": "ObjectEvent",
            "eventTime": "2025-07-18T20:27:47.465Z",
            "eventTimeZoneOffset": "+02:00",
            "epcList": ["urn:epc:id:sgtin:9521234.030206.1023074"],
            "action": "OBSERVE",
            "bizStep": "shipping",
            "disposition": "in_transit",
            "readPoint": {"id": "urn:epc:id:sgln:5412345.00004.0"},
            "bizLocation": {"id": "urn:epc:id:sgln:5412345.00001.0"},
        },
        "namespaces": {},
        "record_time": "2026-11-27T11:02:11.183Z",
        "capture_id": "613dd4bb-4d49-41f2-a0da-1cfb8c22ebe3",
    }
)


def test_the_first_dictionary_is_never_changed() -> None:
    # Stored entries refer into it: a better dictionary is a new one under a new tag.
    assert hashlib.sha256(DICTIONARY_1).hexdigest() == (
        "59e081c1544a13277990829fdfdfecc9411f4f2f42427e3b9e688a3f2732a1a4"
    )


def test_an_entry_reads_back_as_the_json_it_was_given() -> None:
    assert decompressed(compressed(ENTRY)) == ENTRY


def test_a_captured_event_entry_is_stored_in_under_a_third_of_its_json() -> None:
    assert len(compressed(ENTRY)) < len(ENTRY) / 3


def test_stored_bytes_begin_with_the_dictionarys_tag() -> None:
    assert compressed(ENTRY)[0] == 0x01


def test_an_entry_written_before_compression_reads_as_it_is() -> None:
    assert decompressed(ENTRY) == ENTRY


@pytest.mark.parametrize("stored", [b"", b"\x03abc", b"[1]"], ids=["empty", "tag-3", "json-array"])
def test_bytes_of_no_known_format_are_refused(stored: bytes) -> None:
    with pytest.raises(ValueError, match="tag"):
        decompressed(stored)


def test_compressed_bytes_cut_short_are_refused() -> None:
    with pytest.raises(ValueError, match="do not decompress"):
        decompressed(compressed(ENTRY)[:-4])


@given(st.binary())
def test_any_bytes_read_back_as_given(data: bytes) -> None:
    assert decompressed(compressed(data)) == data


def entries_like(count: int) -> list[bytes]:
    """Entries of the shape of `ENTRY`, each with its own event ID, serial and capture."""
    entry = orjson.loads(ENTRY)
    made = []
    for serial in range(count):
        entry["event_id"] = f"ni:///sha-256;{secrets.token_hex(32)}?ver=CBV2.0"
        entry["epcis_event"]["epcList"] = [f"urn:epc:id:sgtin:9521234.030206.{serial}"]
        entry["capture_id"] = secrets.token_hex(16)
        made.append(orjson.dumps(entry))
    return made


def trained_dictionary() -> bytes:
    """A dictionary trained on entries of its own (each call's differs)."""
    content = train(entries_like(300))
    assert content is not None
    return content


@pytest.fixture(scope="module")
def trained() -> TrainedDictionary:
    return learn(trained_dictionary())


def test_an_entry_compressed_with_a_trained_dictionary_reads_back_as_given(
    trained: TrainedDictionary,
) -> None:
    assert decompressed(compressed(ENTRY, trained)) == ENTRY


def test_an_entry_names_its_trained_dictionary_by_tag_and_digest(
    trained: TrainedDictionary,
) -> None:
    stored = compressed(ENTRY, trained)
    assert stored[0] == 0x02
    assert stored[1:9] == hashlib.sha256(trained.content).digest()[:8]


def test_a_trained_dictionary_stores_entries_like_its_samples_in_fewer_bytes(
    trained: TrainedDictionary,
) -> None:
    fresh = entries_like(50)
    with_trained = sum(len(compressed(e, trained)) for e in fresh)
    assert with_trained < 0.8 * sum(len(compressed(e)) for e in fresh)


def test_an_entry_of_a_dictionary_not_learned_is_refused_naming_it() -> None:
    unknown = TrainedDictionary(trained_dictionary())
    with pytest.raises(UnknownDictionary, match=unknown.id.hex()):
        decompressed(compressed(ENTRY, unknown))


@pytest.fixture
def lookups() -> Iterator[list[object]]:
    added: list[object] = []
    yield added
    for lookup in added:
        remove_lookup(lookup)  # type: ignore[arg-type]


def test_a_dictionary_not_learned_is_looked_up_and_then_read(lookups: list[object]) -> None:
    content = trained_dictionary()
    stored = compressed(ENTRY, TrainedDictionary(content))
    asked: list[bool] = []

    def lookup() -> None:
        asked.append(True)
        learn(content)

    lookups.append(lookup)
    add_lookup(lookup)
    assert decompressed(stored) == ENTRY
    assert decompressed(stored) == ENTRY
    assert asked == [True]  # learned once, then known


def test_bytes_that_are_not_a_trained_zstd_dictionary_are_refused() -> None:
    with pytest.raises(ValueError, match="not a trained zstd dictionary"):
        TrainedDictionary(DICTIONARY_1)


def test_an_entry_cut_inside_its_dictionarys_id_is_refused() -> None:
    with pytest.raises(ValueError, match="inside a dictionary's ID"):
        decompressed(b"\x02abc")


@given(st.binary())
def test_any_bytes_read_back_as_given_with_a_trained_dictionary(
    trained: TrainedDictionary, data: bytes
) -> None:
    assert decompressed(compressed(data, trained)) == data


def test_entries_compressed_together_are_the_bytes_each_gets_alone(
    trained: TrainedDictionary,
) -> None:
    entries = entries_like(20)
    for dictionary in (None, trained):
        assert compressed_many(entries, dictionary) == [compressed(e, dictionary) for e in entries]


@pytest.mark.parametrize("count", [0, 1])
def test_no_entry_or_one_compressed_together_is_as_alone(count: int) -> None:
    entries = entries_like(count)
    assert compressed_many(entries) == [compressed(e) for e in entries]
