"""Builders for EPCIS 2.0 test documents."""

import itertools
from typing import Any

CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"
_serials = itertools.count(1)


def document(*events: dict[str, Any], context: list[Any] | None = None) -> dict[str, Any]:
    """An EPCISDocument holding these events."""
    return {
        "@context": context or [CONTEXT],
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": "2024-03-01T10:00:00.000Z",
        "epcisBody": {"eventList": list(events)},
    }


def object_event(**fields: Any) -> dict[str, Any]:
    """A valid ObjectEvent with a fresh SGTIN; keyword arguments override or add fields."""
    event: dict[str, Any] = {
        "type": "ObjectEvent",
        "eventTime": "2024-03-01T10:00:00.000+01:00",
        "eventTimeZoneOffset": "+01:00",
        "epcList": [f"urn:epc:id:sgtin:4012345.011111.{next(_serials)}"],
        "action": "OBSERVE",
        "bizStep": "shipping",
        "disposition": "in_transit",
        "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
        "bizLocation": {"id": "urn:epc:id:sgln:4012345.00001.0"},
    }
    event.update(fields)
    return {k: v for k, v in event.items() if v is not None}


def aggregation_event(parent: str, children: list[str], **fields: Any) -> dict[str, Any]:
    """A valid AggregationEvent packing `children` into `parent`."""
    event: dict[str, Any] = {
        "type": "AggregationEvent",
        "eventTime": "2024-03-01T11:00:00.000Z",
        "eventTimeZoneOffset": "+00:00",
        "parentID": parent,
        "childEPCs": children,
        "action": "ADD",
        "bizStep": "packing",
        "disposition": "in_progress",
        "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"},
    }
    event.update(fields)
    return {k: v for k, v in event.items() if v is not None}
