"""The extension fields of an event as index rows, in the scopes the query families name.

A field directly inside the event (or inside `ilmd`, `errorDeclaration`, a sensor element,
its metadata, a sensor report, `readPoint` or `bizLocation`) is indexed in that scope;
fields nested deeper inside it are indexed in the scope's `INNER_` form. Names are the
full IRIs their CURIEs stand for. Each value is kept as text and, where it reads as one,
as a number and as an instant, so `GT_`/`LT_` compare numbers and times, not strings.
"""

import math
from collections.abc import Iterator, Mapping
from typing import Any

from domain.epcis.curies import expand_curie
from domain.epcis.hash_order import SENSOR_METADATA, SENSOR_REPORT
from domain.epcis.timestamps import InvalidTimestamp, timestamp_micros

#: (scope, name, text, number, instant in µs)
FieldRow = tuple[str, str, str | None, float | None, int | None]

#: The standard members of the structures that carry extension fields: everything else in
#: them is an extension.
_STANDARD_MEMBERS: dict[str, frozenset[str]] = {
    "ERROR_DECLARATION_": frozenset({"declarationTime", "reason", "correctiveEventIDs"}),
    "SENSORELEMENT_": frozenset({"sensorMetadata", "sensorReport"}),
    # The hash's canonical orders name every standard member (bizRules, which a report
    # may carry too, is the one the hash has no place for there).
    "SENSORMETADATA_": frozenset(SENSOR_METADATA),
    "SENSORREPORT_": frozenset(SENSOR_REPORT) | {"bizRules"},
    "readPoint_": frozenset({"id"}),
    "bizLocation_": frozenset({"id"}),
    "ILMD_": frozenset(),
}

#: Longest written scopes first, so `INNER_ILMD_` is not read as `INNER_` + a name.
SCOPES = tuple(
    sorted(
        {"", "INNER_"} | set(_STANDARD_MEMBERS) | {"INNER_" + s for s in _STANDARD_MEMBERS},
        key=len,
        reverse=True,
    )
)


def typed_value(value: Any) -> tuple[str | None, float | None, int | None] | None:
    """A scalar as (text, number, instant); None for structures and nulls."""
    if isinstance(value, Mapping) and "@value" in value:
        value = value["@value"]  # a JSON-LD value object
    if isinstance(value, bool):
        return ("true" if value else "false", None, None)
    if isinstance(value, int | float):
        number = float(value)
        return (None, number, None) if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    return (value, _number(value), instant(value))


def _number(text: str) -> float | None:
    # XML carries every value as text; a field written `20.5` is still a number.
    if not text or text[0] not in "+-.0123456789":
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def instant(text: str) -> int | None:
    """The instant a text names in µs, None for text that is no date-time."""
    if len(text) < 20 or text[4] != "-" or "T" not in text:
        return None
    try:
        return timestamp_micros(text)
    except InvalidTimestamp:
        return None


def field_rows(event: Mapping[str, Any], namespaces: Mapping[str, str]) -> list[FieldRow]:
    """Every extension field of the event as index rows (scope, IRI, text, number, instant)."""
    rows: list[FieldRow] = []
    for name, value in event.items():
        if _is_extension(name) and name not in _EVENT_MEMBERS:
            rows.extend(_rows("", name, value, namespaces))
    ilmd = event.get("ilmd")
    if isinstance(ilmd, Mapping):
        rows.extend(_members("ILMD_", ilmd, namespaces))
    for scope, key in (
        ("ERROR_DECLARATION_", "errorDeclaration"),
        ("readPoint_", "readPoint"),
        ("bizLocation_", "bizLocation"),
    ):
        holder = event.get(key)
        if isinstance(holder, Mapping):
            rows.extend(_members(scope, holder, namespaces))
    for element in _mappings(event.get("sensorElementList")):
        rows.extend(_members("SENSORELEMENT_", element, namespaces))
        metadata = element.get("sensorMetadata")
        if isinstance(metadata, Mapping):
            rows.extend(_members("SENSORMETADATA_", metadata, namespaces))
        for report in _mappings(element.get("sensorReport")):
            rows.extend(_members("SENSORREPORT_", report, namespaces))
    return rows


#: Standard event members that hold structures the scopes above cover, or are not fields.
_EVENT_MEMBERS = frozenset({"@context", "@type", "@id"})


def _is_extension(name: str) -> bool:
    return ":" in name and not name.startswith("@")


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, Mapping):
            yield item


def _members(
    scope: str, holder: Mapping[str, Any], namespaces: Mapping[str, str]
) -> Iterator[FieldRow]:
    standard = _STANDARD_MEMBERS[scope]
    for name, value in holder.items():
        if name not in standard and not name.startswith("@"):
            yield from _rows(scope, name, value, namespaces)


def _rows(scope: str, name: str, value: Any, namespaces: Mapping[str, str]) -> Iterator[FieldRow]:
    """The rows of one field: its own values in `scope`, what nests inside it in INNER_."""
    iri = expand_curie(name, namespaces)
    inner = scope if scope.startswith("INNER_") else "INNER_" + scope
    for item in value if isinstance(value, list) else [value]:
        typed = typed_value(item)
        if typed is not None:
            yield (scope, iri, *typed)
        elif isinstance(item, Mapping):
            for child, child_value in item.items():
                if not child.startswith("@"):
                    yield from _rows(inner, child, child_value, namespaces)
