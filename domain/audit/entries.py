"""What a leaf of the tree says about one log entry: its position and every column it was
stored with, as bytes nobody can read two ways."""

import struct
from typing import NamedTuple

from domain.audit.merkle import leaf_hash


class StoredEntry(NamedTuple):
    """One entry of the event log as the database holds it."""

    position: int
    originator_id: str
    originator_version: int
    topic: str
    state: bytes


def leaf_data(entry: StoredEntry) -> bytes:
    """The entry in the tree's leaf form (documented in docs/audit.md).

    Each field has its length in front (TLS-style): position u64, originator ID (u16 length,
    UTF-8), version u64, topic (u16 length, UTF-8), state (u32 length): two different
    entries never give the same bytes.
    """
    originator = entry.originator_id.encode()
    topic = entry.topic.encode()
    return b"".join(
        (
            struct.pack(">QH", entry.position, len(originator)),
            originator,
            struct.pack(">QH", entry.originator_version, len(topic)),
            topic,
            struct.pack(">I", len(entry.state)),
            entry.state,
        )
    )


def parse_leaf_data(data: bytes) -> StoredEntry:
    """The entry a leaf's data describes (`leaf_data` read back); ValueError when the bytes
    are not of that form."""
    try:
        position, size = struct.unpack_from(">QH", data, 0)
        offset = 10 + size
        originator = data[10:offset].decode()
        version, size = struct.unpack_from(">QH", data, offset)
        topic = data[offset + 10 : offset + 10 + size].decode()
        offset += 10 + size
        (size,) = struct.unpack_from(">I", data, offset)
    except (struct.error, UnicodeDecodeError) as exc:
        raise ValueError(f"not a leaf's data: {exc}") from exc
    state = data[offset + 4 :]
    if len(state) != size:
        raise ValueError("not a leaf's data: its state is not as long as it says")
    return StoredEntry(position, originator, version, topic, state)


def entry_leaf(entry: StoredEntry) -> bytes:
    """The leaf hash of a log entry."""
    return leaf_hash(leaf_data(entry))
