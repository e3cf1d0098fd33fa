"""When two records with one event ID are the same event, and what an event ID may claim.

An event ID names one event. Its records (the event and its error declarations) must agree
on everything but `errorDeclaration`, `eventID` and `recordTime`, compared in the canonical
form of the CBV pre-hash string; each distinct declaration is recorded once.
"""

import contextlib
import enum
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from domain.epcis.cbv import normalise_cbv
from domain.epcis.earlier_hash import earlier_event_hash
from domain.epcis.event_hash import (
    HASH_PREFIX,
    HASH_SUFFIX,
    event_hash,
    prehash,
)
from domain.epcis.fields import expand_name
from domain.epcis.timestamps import InvalidTimestamp, timestamp_micros

#: What the repository adds or the algorithm leaves out: never part of what is compared.
_NOT_CONTENT = ("eventID", "recordTime", "errorDeclaration")


def is_verifiable_hash(event_id: str) -> bool:
    """Whether the ID claims to be a CBV 2.0 event hash, the one form this service computes."""
    return event_id.startswith(HASH_PREFIX) and event_id.endswith(HASH_SUFFIX)


def hash_mismatch(
    event_id: str,
    event: Mapping[str, Any],
    namespaces: Mapping[str, str],
    ignore_fields: Collection[str] = (),
) -> str | None:
    """The hash the event's content has when its ID claims a different one, else None.

    The hash this service (and the reference's JSON path) gave before it expanded unbound
    standard prefixes (`earlier_event_hash`) is the event's too: IDs computed so stay valid.
    """
    if not is_verifiable_hash(event_id):
        return None
    actual = event_hash(event, namespaces, ignore_fields=ignore_fields)
    # Hex digits name the same digest in either case.
    if actual.lower() == event_id.lower():
        return None
    earlier = earlier_event_hash(event, namespaces, ignore_fields=ignore_fields, current=actual)
    return None if earlier is not None and earlier.lower() == event_id.lower() else actual


def content_key(event: Mapping[str, Any], namespaces: Mapping[str, str]) -> str:
    """The event's content in canonical form: what every record of its ID must share."""
    try:
        return prehash(event, namespaces)
    except Exception:  # an event the algorithm cannot read is compared as written
        content = {k: v for k, v in event.items() if k not in _NOT_CONTENT}
        return orjson.dumps([content, dict(namespaces)], option=orjson.OPT_SORT_KEYS).decode()


def declaration_key(event: Mapping[str, Any], namespaces: Mapping[str, str]) -> str | None:
    """The event's error declaration in canonical form, or None when it declares none."""
    declaration = event.get("errorDeclaration")
    if declaration is None:
        return None
    if not isinstance(declaration, Mapping):
        return orjson.dumps(declaration, option=orjson.OPT_SORT_KEYS).decode()
    canonical: dict[str, Any] = {}
    for name, value in declaration.items():
        if name == "declarationTime" and isinstance(value, str):
            with contextlib.suppress(InvalidTimestamp):
                value = timestamp_micros(value)
        elif name == "reason" and isinstance(value, str):
            value = normalise_cbv("errorReason", value)
        elif name == "correctiveEventIDs" and isinstance(value, list):
            value = sorted({v for v in value if isinstance(v, str)})
        canonical[expand_name(name, dict(namespaces))] = value
    return orjson.dumps(canonical, option=orjson.OPT_SORT_KEYS).decode()


@dataclass
class Record:
    """One record of an event ID, stored or offered, with its keys worked out on demand."""

    epcis_event: Mapping[str, Any]
    namespaces: Mapping[str, str]
    _content: str | None = field(default=None, repr=False)

    @property
    def content(self) -> str:
        """Its content key (cached: the pre-hash costs tens of µs)."""
        if self._content is None:
            self._content = content_key(self.epcis_event, self.namespaces)
        return self._content

    @property
    def declaration(self) -> str | None:
        """Its declaration key, None for the event itself."""
        return declaration_key(self.epcis_event, self.namespaces)

    def same_as(self, other: "Record") -> bool:
        """Whether both are the same record: as written (quick), else in canonical form."""
        if self.namespaces == other.namespaces and _without_ids(self.epcis_event) == _without_ids(
            other.epcis_event
        ):
            return True
        return self.content == other.content and self.declaration == other.declaration


def _without_ids(event: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("eventID", "recordTime")}


class Admission(enum.Enum):
    """What becomes of a record offered for an event ID."""

    NEW = "new"
    PRESENT = "already present"
    CONFLICT = "conflict"


@dataclass
class Journal:
    """The records of one event ID: those stored, then those admitted by this capture."""

    records: list[Record] = field(default_factory=list)

    @property
    def next_version(self) -> int:
        """The version the next admitted record is stored at."""
        return len(self.records) + 1

    def admit(self, record: Record) -> Admission:
        """Whether the record is new here (and then keep it), already present, or a conflict."""
        if not self.records:
            self.records.append(record)
            return Admission.NEW
        if any(record.same_as(kept) for kept in self.records):
            return Admission.PRESENT
        if record.content != self.records[0].content:
            return Admission.CONFLICT
        self.records.append(record)
        return Admission.NEW
