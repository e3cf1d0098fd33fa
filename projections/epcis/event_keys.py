"""Event IDs as the query tables hold them: by a 128-bit hash of the ID, in two 64-bit
halves (the key, which is indexed, and a check), and, in the table of corrective IDs, in
a shorter form where the ID is a content hash.

An ID named by its content hash is 87 characters (`ni:///sha-256;…?ver=CBV2.0`); as an
index key it cost ~175 bytes an event, its hash ~30, and its text in the event row ~46
more. Queries match the key through the index and then the check: two IDs are mistaken
for each other only if 128 bits of their hashes agree. The ID itself is read from the
event's log entry (stored_documents.py). Corrective IDs are few: they are kept as text,
`#` and the hash's 32 bytes in URL-safe base64 (44 characters) for an ID named by its
hash, one to one: any other ID is kept as it is, with one more `#` in front if it has one.
"""

import re
from base64 import urlsafe_b64decode, urlsafe_b64encode
from hashlib import blake2b

_HASH_ID = re.compile(r"ni:///sha-256;([0-9a-f]{64})\?ver=CBV2\.0")
_MARK = "#"


def event_keys(event_id: str) -> tuple[int, int]:
    """The signed 64-bit key of an event ID and its signed 64-bit check."""
    digest = blake2b(event_id.encode(), digest_size=16).digest()
    return (
        int.from_bytes(digest[:8], "big", signed=True),
        int.from_bytes(digest[8:], "big", signed=True),
    )


def stored_event_id(event_id: str) -> str:
    """The form the table of corrective IDs keeps `event_id` in."""
    named = _HASH_ID.fullmatch(event_id)
    if named is not None:
        return _MARK + urlsafe_b64encode(bytes.fromhex(named[1])).rstrip(b"=").decode()
    return _MARK + event_id if event_id.startswith(_MARK) else event_id


def event_id_of(stored: str) -> str:
    """The event ID kept as `stored` (`stored_event_id`)."""
    if not stored.startswith(_MARK):
        return stored
    if stored.startswith(_MARK, 1):
        return stored[1:]
    digest = urlsafe_b64decode(stored[1:] + "=")
    return f"ni:///sha-256;{digest.hex()}?ver=CBV2.0"
