"""Rules a document must meet beyond the standard for the repository to store and index it.

PostgreSQL cannot hold a NUL character in text, an event ID is a unique key that must fit
a B-tree index entry, and the JSON encoder stops at 255 levels of nesting; each would
otherwise fail after the event was accepted.
"""

from collections.abc import Iterator
from typing import Any

import orjson

from domain.epcis.violations import Violation

#: Longest event ID accepted: even in 4-byte characters it fits a B-tree index entry.
MAX_EVENT_ID_LENGTH = 512


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield where, item
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, where))
                stack.append((child, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, list):
            stack.extend((child, f"{where}.{i}") for i, child in enumerate(item))


def nul_violations(document: Any) -> list[Violation]:
    """Every place in a document where text holds a NUL character (a slow, exact walk)."""
    return sorted(
        {
            Violation(where or "(root)", "Text must not contain the NUL character (\\u0000)")
            for where, text in _strings(document, "")
            if "\x00" in text
        },
        key=lambda v: v.location,
    )


def event_id_violations(document: Any) -> list[Violation]:
    """Event IDs too long to index."""
    violations = []
    body = document.get("epcisBody") if isinstance(document, dict) else None
    events = body.get("eventList") if isinstance(body, dict) else None
    for index, event in enumerate(events if isinstance(events, list) else ()):
        event_id = event.get("eventID") if isinstance(event, dict) else None
        if isinstance(event_id, str) and len(event_id) > MAX_EVENT_ID_LENGTH:
            violations.append(
                Violation(
                    f"epcisBody.eventList.{index}.eventID",
                    f"An eventID may be at most {MAX_EVENT_ID_LENGTH} characters long",
                )
            )
    return violations


#: Objects and arrays inside one another. EPCIS documents need about ten; the JSON encoder
#: stops at 255, and every stored event is encoded again.
MAX_NESTING = 128


#: Objects and arrays inside one another that orjson encodes (one more, and it refuses).
ENCODER_NESTING = 254


def encoded_within(document: Any, limit: int = MAX_NESTING) -> bytes | None:
    """The JSON of `document` inside a few arrays when it nests no deeper than `limit`
    levels; None when it does, or cannot be encoded for another reason.

    The arrays leave the encoder room for `limit` levels of the document's own: its
    depth check, in C, answers what walking a large document in Python took ~2 µs an
    event for (`nesting_violation` then tells where, for the rare document refused).
    """
    wrapped = document
    for _ in range(ENCODER_NESTING - limit):
        wrapped = [wrapped]
    try:
        return orjson.dumps(wrapped)
    except orjson.JSONEncodeError:
        return None


def nesting_violation(document: Any, limit: int = MAX_NESTING) -> Violation | None:
    """A violation at the first place the document nests deeper than `limit`, or None."""
    # A stack, not recursion: the document may be as deep as its parser allowed. Only
    # objects and arrays are stacked, each with the trail of keys that led to it, which
    # is spelled out as a path only for the violation.
    if not isinstance(document, (dict, list)):
        return None
    stack: list[tuple[Any, int, Any]] = [(document, 0, None)]
    while stack:
        value, depth, trail = stack.pop()
        if depth >= limit:
            # At the root whatever the place: the rest of the document goes unchecked, so
            # no part of it may be stored, whatever the error behaviour.
            return Violation(
                "(root)",
                f"The document nests objects and arrays deeper than {limit} levels"
                f" (at {_spelled(trail)})",
            )
        for key, child in value.items() if isinstance(value, dict) else enumerate(value):
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, (key, trail)))
    return None


def _spelled(trail: Any) -> str:
    """The dotted path of a trail of (key, parent trail) pairs."""
    keys: list[str] = []
    while trail is not None:
        key, trail = trail
        keys.append(str(key))
    return ".".join(reversed(keys))
