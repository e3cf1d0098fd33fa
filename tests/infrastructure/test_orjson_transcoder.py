"""The event store's orjson transcoder writes exactly what eventsourcing's JSON one does."""

from datetime import UTC, datetime

from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder

from infrastructure.orjson_transcoder import OrjsonTranscoder

STATE = {
    "timestamp": datetime(2024, 3, 1, 10, 0, 0, 123456, tzinfo=UTC),
    "epcis_event": {"epcList": ["urn:epc:id:sgtin:4012345.011111.1"], "q": 2.5, "ok": True},
    "namespaces": {"ex": "https://example.com/é/"},
    "capture_id": None,
}


def library_transcoder() -> JSONTranscoder:
    transcoder = JSONTranscoder()
    transcoder.register(DatetimeAsISO())
    return transcoder


def test_it_encodes_the_same_bytes_as_the_library() -> None:
    assert OrjsonTranscoder().encode(STATE) == library_transcoder().encode(STATE)


def test_it_reads_what_the_library_wrote() -> None:
    assert OrjsonTranscoder().decode(library_transcoder().encode(STATE)) == STATE


def test_the_library_reads_what_it_wrote() -> None:
    assert library_transcoder().decode(OrjsonTranscoder().encode(STATE)) == STATE
