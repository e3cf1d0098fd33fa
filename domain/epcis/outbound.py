"""EPCIS documents the service sends out (outbound flows), and what their events refer to."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

EPCIS_CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"

#: Where an event names EPCs (instance identifiers), by field.
_EPC_LISTS = ("epcList", "childEPCs", "inputEPCList", "outputEPCList")

#: The commissioning business step, bare (EPCIS 2.0) and as a CBV URN (1.x style).
COMMISSIONING = ("commissioning", "urn:epcglobal:cbv:bizstep:commissioning")


def capture_document(events: Sequence[str], namespaces: Mapping[str, str], created: str) -> bytes:
    """An EPCISDocument holding these events (their stored JSON, not re-encoded)."""
    head = _head("EPCISDocument", namespaces, created)
    return head + b',"epcisBody":{"eventList":[' + ",".join(events).encode() + b"]}}"


def _head(kind: str, namespaces: Mapping[str, str], created: str) -> bytes:
    """A document's opening, up to where its body goes (no closing brace)."""
    context: list[Any] = [EPCIS_CONTEXT]
    if namespaces:
        context.append(dict(namespaces))
    opening = {"@context": context, "type": kind, "schemaVersion": "2.0", "creationDate": created}
    return orjson.dumps(opening)[:-1]


def referenced_epcs(event: Mapping[str, Any]) -> set[str]:
    """The EPCs an event names: its lists of EPCs and its parent."""
    found: set[str] = set()
    for name in _EPC_LISTS:
        values = event.get(name)
        if isinstance(values, list):
            found.update(v for v in values if isinstance(v, str))
    parent = event.get("parentID")
    if isinstance(parent, str):
        found.add(parent)
    return found


def all_referenced(events: Iterable[Mapping[str, Any]]) -> set[str]:
    """The EPCs any of these events names."""
    found: set[str] = set()
    for event in events:
        found |= referenced_epcs(event)
    return found


def query_document(
    events: Sequence[str],
    namespaces: Mapping[str, str],
    created: str,
    query_name: str,
    subscription_id: str | None = None,
) -> bytes:
    """An EPCISQueryDocument with these events: what subscriptions deliver."""
    head = _head("EPCISQueryDocument", namespaces, created)
    results: dict[str, Any] = {"queryName": query_name}
    if subscription_id is not None:
        results["subscriptionID"] = subscription_id
    opening = orjson.dumps(results)[:-1] + b',"resultsBody":{"eventList":['
    return head + b',"epcisBody":{"queryResults":' + opening + ",".join(events).encode() + b"]}}}}"
