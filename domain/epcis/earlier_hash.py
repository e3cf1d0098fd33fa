"""The hash events had before the standard prefixes were expanded where a document leaves
them unbound: stored events keep the identity they were given under it."""

from collections.abc import Collection, Mapping
from typing import Any

import orjson

from domain.epcis.event_hash import STANDARD_PREFIXES, event_hash

_STANDARD_MARKERS = tuple(f'"{prefix}:'.encode() for prefix in STANDARD_PREFIXES)


def earlier_event_hash(
    event: Mapping[str, Any],
    context: Mapping[str, str] | None = None,
    *,
    ignore_fields: Collection[str] = (),
    current: str | None = None,
) -> str | None:
    """The hash this service gave the event before it expanded the standard prefixes it
    leaves unbound (`STANDARD_PREFIXES`), when that differs from its hash (`current`,
    where the caller has it already); else None."""
    if not _mentions_standard_prefix(event):
        return None
    earlier = event_hash(
        event, context, ignore_fields=ignore_fields, expand_standard_prefixes=False
    )
    if current is None:
        current = event_hash(event, context, ignore_fields=ignore_fields)
    return None if earlier == current else earlier


def may_mention_standard_prefix(encoded: bytes) -> bool:
    """Whether events encoded by orjson (`encoded`, one or a list of them) may have an
    earlier hash: only a key or value that starts with a standard prefix hashes apart."""
    return any(marker in encoded for marker in _STANDARD_MARKERS)


def _mentions_standard_prefix(event: Mapping[str, Any]) -> bool:
    try:
        encoded = orjson.dumps(event)
    except (orjson.JSONEncodeError, TypeError):
        return True  # no quick look (a number past 64 bits): compare the hashes
    return may_mention_standard_prefix(encoded)
