"""The `@context` of a document holding events captured under different ones.

A page of a query, a flow's batch or a subscription's delivery may hold events whose
capture documents bound one prefix to different namespaces. The document's `@context`
binds each prefix as the first event's document did; an event whose document bound it
otherwise, or left it unbound while using it, carries an `@context` of its own (JSON-LD
lets an event object hold one), so each CURIE still names the IRI it named at capture.
"""

from collections.abc import Iterable
from typing import NamedTuple

import orjson

from domain.epcis.curies import STANDARD_PREFIXES


class DocumentEvents(NamedTuple):
    """The prefixes for the document's `@context`, and the events' JSON texts."""

    namespaces: dict[str, str]
    events: list[str]


def in_one_document(events: Iterable[tuple[str, str | None]]) -> DocumentEvents:
    """Events (stored JSON, and their capture document's prefixes as stored JSON or None)
    ready to go into one document, in the same order."""
    parsed: dict[str, dict[str, str]] = {}
    rows: list[tuple[str, dict[str, str]]] = []
    for document, namespaces in events:
        if not namespaces:
            rows.append((document, {}))
            continue
        if namespaces not in parsed:
            # Events of one capture share one text: parse it once.
            parsed[namespaces] = orjson.loads(namespaces)
        rows.append((document, parsed[namespaces]))
    shared: dict[str, str] = {}
    for _, bound in rows:
        for prefix, namespace in bound.items():
            shared.setdefault(prefix, namespace)
    if not shared:
        return DocumentEvents({}, [document for document, _ in rows])
    return DocumentEvents(shared, [_in_context(doc, bound, shared) for doc, bound in rows])


def _in_context(document: str, bound: dict[str, str], shared: dict[str, str]) -> str:
    """The event's JSON, with an `@context` of its own where the shared one misleads."""
    own: dict[str, str | None] = {
        prefix: namespace for prefix, namespace in bound.items() if shared[prefix] != namespace
    }
    for prefix in shared.keys() - bound.keys():
        # Unbound, `ex:x` is the IRI `ex:x`; the standard context binds its own prefixes
        # for every event alike.
        if prefix not in STANDARD_PREFIXES and f'"{prefix}:' in document:
            own[prefix] = None
    return _with_context(document, own) if own else document


def _with_context(document: str, own: dict[str, str | None]) -> str:
    """`document` (an event's JSON object) with `own` as the first entry of its `@context`."""
    context = orjson.dumps(own).decode()
    if '"@context"' not in document:
        return '{"@context":' + context + "," + document[1:]
    event = orjson.loads(document)
    brought = event.pop("@context", None)
    if brought is None:
        return '{"@context":' + context + "," + document[1:]
    # The event's own context comes last, so what it binds still wins.
    contexts = [own, *(brought if isinstance(brought, list) else [brought])]
    return orjson.dumps({"@context": contexts, **event}).decode()
