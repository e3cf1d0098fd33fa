"""Event IDs as the query tables index them: a 64-bit hash of the ID.

An ID named by its content hash is 90 characters (`ni:///sha-256;…?ver=CBV2.0`); as an
index key it cost ~175 bytes an event, its hash ~30. Queries match the hash through the
index and then the ID itself, so two IDs of one hash are never mistaken for each other.
"""

from hashlib import blake2b


def event_key(event_id: str) -> int:
    """The signed 64-bit key of an event ID."""
    digest = blake2b(event_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
