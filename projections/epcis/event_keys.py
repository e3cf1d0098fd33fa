"""Event IDs as the query tables hold them: indexed by a 64-bit hash of the ID, kept in
a shorter form where the ID is a content hash.

An ID named by its content hash is 87 characters (`ni:///sha-256;…?ver=CBV2.0`); as an
index key it cost ~175 bytes an event, its hash ~30. Queries match the hash through the
index and then the ID itself, so two IDs of one hash are never mistaken for each other.
The ID itself is kept as `#` and the hash's 32 bytes in URL-safe base64 (44 characters),
one to one: any other ID is kept as it is, with one more `#` in front if it has one.
"""

import re
from base64 import urlsafe_b64decode, urlsafe_b64encode
from hashlib import blake2b

_HASH_ID = re.compile(r"ni:///sha-256;([0-9a-f]{64})\?ver=CBV2\.0")
_MARK = "#"


def event_key(event_id: str) -> int:
    """The signed 64-bit key of an event ID."""
    digest = blake2b(event_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def stored_event_id(event_id: str) -> str:
    """The form the query tables keep `event_id` in."""
    named = _HASH_ID.fullmatch(event_id)
    if named is not None:
        return _MARK + urlsafe_b64encode(bytes.fromhex(named[1])).rstrip(b"=").decode()
    return _MARK + event_id if event_id.startswith(_MARK) else event_id


def event_id_of(stored: str) -> str:
    """The event ID the query tables keep as `stored`."""
    if not stored.startswith(_MARK):
        return stored
    if stored.startswith(_MARK, 1):
        return stored[1:]
    digest = urlsafe_b64decode(stored[1:] + "=")
    return f"ni:///sha-256;{digest.hex()}?ver=CBV2.0"
