"""Captured events as queries return them, read from the log: the query tables keep no
second copy of an event, only the position of its log entry.

A log entry's state is compressed (`infrastructure/log_compression.py`); uncompressed, it is
the captured event's JSON as eventsourcing's mapper wrote it:
`{"timestamp":…,["originator_topic":…,]"event_id":…,"epcis_event":{EVENT},
"namespaces":{…},"record_time":"…","capture_id":"…"}`. Returning an event is returning
EVENT with its `eventID` and `recordTime`; parsing and dumping all of it for every event
of a page cost more than the query's SQL, so the common case cuts EVENT out of the bytes.
"""

import orjson

from domain.epcis.captured_event import as_captured
from infrastructure.event_store import log_position, log_table
from infrastructure.log_compression import decompressed
from infrastructure.sql_dialect import Dialect

_EVENT = b',"epcis_event":'
_EVENT_ID = b'"event_id":'
_NAMESPACES = b',"namespaces":{'
_RECORD_TIME = b',"record_time":"'


def log_join(dialect: Dialect, alias: str = "e") -> str:
    """A JOIN of the log entries (as `s`) of the events of `alias`, for `s.state`."""
    return f" JOIN {log_table(dialect.name)} s ON s.{log_position(dialect.name)} = {alias}.position"


def stored_document(state: bytes) -> tuple[str, str | None]:
    """The event of a log entry as queries return it (JSON), and the prefixes of its
    capture document (JSON, or None when it bound none)."""
    state = decompressed(state)
    # The keys before EVENT hold no quote of their own (a time, a topic, an escaped ID),
    # and the keys after it no `{` after a key (prefixes bind strings): the first and
    # the last such marks are the entry's own.
    start, event_id = _id_json(state)
    record = state.rfind(_RECORD_TIME)
    middle = state.rfind(_NAMESPACES, 0, record)
    if event_id is None or record < 0 or middle < 0:
        return _parsed(state)
    event = state[start + len(_EVENT) : middle]
    namespaces = state[middle + len(_NAMESPACES) - 1 : record]
    end = state.index(b'"', record + len(_RECORD_TIME))
    record_time = state[record + len(_RECORD_TIME) : end]
    if b'"recordTime":' in event:
        return _parsed(state)
    if b'"eventID":' not in event:
        # as_captured adds the ID and then the record time at the end.
        tail = b',"eventID":' + event_id + b',"recordTime":"' + record_time
    elif b'"eventID":' + event_id in event:
        # The event's own ID, which as_captured keeps where it is. (A copy of it deeper
        # in the event, with another top-level ID, would need a content hash equal to
        # a value inside that content.)
        tail = b',"recordTime":"' + record_time
    else:
        return _parsed(state)
    document = event[:-1] + tail + b'"}'
    return document.decode(), None if namespaces == b"{}" else namespaces.decode()


def logged_event_id(state: bytes) -> str:
    """The event ID of a captured event's log entry."""
    state = decompressed(state)
    _, event_id = _id_json(state)
    return str(orjson.loads(state)["event_id"] if event_id is None else orjson.loads(event_id))


def _id_json(state: bytes) -> tuple[int, bytes | None]:
    """Where the entry's EVENT starts, and its ID as JSON as the entry spells it (what
    `orjson.dumps` makes of it); None when the marks are not where they are written."""
    start = state.find(_EVENT)
    named = state.find(_EVENT_ID, 0, start)
    if start < 0 or named < 0:
        return start, None
    return start, state[named + len(_EVENT_ID) : start]


def _parsed(state: bytes) -> tuple[str, str | None]:
    entry = orjson.loads(state)
    document = as_captured(entry["epcis_event"], entry["event_id"], entry["record_time"])
    namespaces = entry.get("namespaces")
    return orjson.dumps(document).decode(), orjson.dumps(
        namespaces
    ).decode() if namespaces else None
