"""Compression dictionaries trained on the log's own entries.

`DICTIONARY_1` knows the strings every EPCIS entry repeats; a dictionary trained on an
installation's entries also knows its company prefixes, locations, namespaces and the
statistics of its characters, and stores a captured event in about 40 % fewer bytes
(docs/performance.md). Each trained dictionary is a log entry of its own, a version of
the aggregate `log-dictionaries`: audited with the rest, copied with the log, and read by
every process of the installation. Entries name the dictionary they were compressed
with by its digest (`infrastructure/log_compression.py`); none is ever changed.

A dictionary is trained when the log has reached `FIRST_AT` entries, and again each time
it has grown `GROWTH`-fold since the last, on the newest `SAMPLES` entries (some 40 ms
of a process's time).
"""

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson
import zstandard
from eventsourcing.persistence import StoredEvent

from infrastructure.log_compression import compressed, decompressed, learn

__all__ = [
    "AGGREGATE",
    "FIRST_AT",
    "GROWTH",
    "SAMPLES",
    "TOPIC",
    "StoredDictionary",
    "dictionary_entry",
    "due_at",
    "learned",
    "stored_dictionary",
    "train",
]

#: The aggregate whose versions are the trained dictionaries, oldest first.
AGGREGATE = "log-dictionaries"
#: The topic of a dictionary's entry (no domain event: nothing projects it).
TOPIC = "log-dictionary"
#: Log entries before the first dictionary is trained.
FIRST_AT = 2_000
#: How many times larger the log must be than at the last training to train again.
GROWTH = 8
#: The newest entries a dictionary is trained on: 5,000 gave no smaller entries.
SAMPLES = 2_000
#: Bytes of a dictionary: larger ones compressed the bench's entries no smaller.
SIZE = 16_384
#: zstd's COVER parameters (segment and d-mer sizes), fixed: searching for them (its
#: default) took 5 times longer and found entries 1 % smaller.
_SEGMENT, _DMER = 2048, 8


@dataclass(frozen=True, slots=True)
class StoredDictionary:
    """A trained dictionary as its log entry holds it."""

    content: bytes
    #: The log's newest position when it was trained.
    trained_at: int


def due_at(newest: StoredDictionary | None) -> int:
    """The log position from which the next dictionary is to be trained."""
    return FIRST_AT if newest is None else max(FIRST_AT, newest.trained_at * GROWTH)


def train(entries: Sequence[bytes]) -> bytes | None:
    """A dictionary trained on these entries' JSON; None when they are too few or too
    alike for zstd to train one."""
    if len(entries) < 100:
        return None
    try:
        trained = zstandard.train_dictionary(SIZE, list(entries), k=_SEGMENT, d=_DMER, level=1)
    except zstandard.ZstdError:
        return None
    return trained.as_bytes()


def dictionary_entry(version: int, dictionary: StoredDictionary) -> StoredEvent:
    """The log entry of the `version`-th trained dictionary: JSON compressed with
    `DICTIONARY_1`, so that it reads without any trained one."""
    state = orjson.dumps(
        {
            "trained_at": dictionary.trained_at,
            "dictionary": base64.b64encode(dictionary.content).decode(),
        }
    )
    return StoredEvent(AGGREGATE, version, TOPIC, compressed(state))


def stored_dictionary(state: bytes) -> StoredDictionary:
    """A dictionary's entry read back (ValueError when it is not one)."""
    try:
        content = orjson.loads(decompressed(state))
        return StoredDictionary(
            base64.b64decode(content["dictionary"], validate=True), int(content["trained_at"])
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a log dictionary's entry: {exc}") from exc


def learned(states: Iterable[bytes]) -> list[StoredDictionary]:
    """Learn the dictionaries these entries hold (the states of a log's `AGGREGATE`
    entries), so that entries compressed with them can be read; them, in order."""
    found = [stored_dictionary(bytes(state)) for state in states]
    for dictionary in found:
        learn(dictionary.content)
    return found
