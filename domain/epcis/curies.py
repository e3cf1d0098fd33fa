"""Compact IRIs (CURIEs): `prefix:local`, where an `@context` binds the prefix to a namespace.

JSON-LD reads `ex:step` as the namespace of `ex` followed by `step` when the context binds
`ex`, and as the absolute IRI `ex:step` when it does not. The query indexes and the query
parameters expand CURIEs the same way, so a value is found whichever way it was written.
"""

from collections.abc import Mapping
from typing import Any

#: Prefixes the EPCIS 2.0 JSON-LD context binds itself: a value such as `cbv:…` means the
#: same in every document, whether or not the document binds the prefix again.
STANDARD_PREFIXES = frozenset({"epcis", "cbv", "cbvmda", "gs1", "rdfs", "owl", "xsd", "dcterms"})

#: Never a prefix: `urn:epc:…` and its kin are URNs whatever a context binds, which also
#: spares queries over EPCs a look-up of prefixes.
_NOT_PREFIXES = frozenset({"urn", "_"})

#: Fields of an event whose values are IRIs (and so may be CURIEs), each a path of keys;
#: a list on the way applies the rest of the path to each of its items.
IRI_FIELDS: tuple[tuple[str, ...], ...] = (
    ("type",),  # the standard's five are words; an extension event's type is an IRI
    ("bizStep",),
    ("disposition",),
    ("readPoint", "id"),
    ("bizLocation", "id"),
    ("parentID",),
    ("epcList",),
    ("childEPCs",),
    ("inputEPCList",),
    ("outputEPCList",),
    ("quantityList", "epcClass"),
    ("childQuantityList", "epcClass"),
    ("inputQuantityList", "epcClass"),
    ("outputQuantityList", "epcClass"),
    ("bizTransactionList", "type"),
    ("bizTransactionList", "bizTransaction"),
    ("sourceList", "type"),
    ("sourceList", "source"),
    ("destinationList", "type"),
    ("destinationList", "destination"),
    ("transformationID",),
    ("persistentDisposition", "set"),
    ("persistentDisposition", "unset"),
    ("errorDeclaration", "reason"),
)


def curie_prefix(value: str) -> str | None:
    """The prefix of `value` when it has the form of a CURIE, else None."""
    prefix, sep, local = value.partition(":")
    if not sep or not prefix or prefix in _NOT_PREFIXES or local.startswith("//"):
        return None
    return prefix


def expand_curie(value: str, namespaces: Mapping[str, str]) -> str:
    """`value` with its prefix replaced by the namespace `namespaces` binds it to."""
    prefix = curie_prefix(value)
    if prefix is None or prefix not in namespaces:
        return value
    return namespaces[prefix] + value[len(prefix) + 1 :]


def context_prefixes(context: Any) -> dict[str, str | None]:
    """The prefixes an `@context` binds (None: a prefix it unbinds); URLs and term
    definitions that are objects are skipped."""
    entries = context if isinstance(context, list) else [context]
    prefixes: dict[str, str | None] = {}
    for entry in entries:
        if isinstance(entry, Mapping):
            for prefix, namespace in entry.items():
                named = isinstance(prefix, str) and not prefix.startswith("@")
                if named and (namespace is None or isinstance(namespace, str)):
                    prefixes[prefix] = namespace
    return prefixes


def event_namespaces(event: Mapping[str, Any], namespaces: Mapping[str, str]) -> dict[str, str]:
    """The prefixes in force inside `event`: its document's, then those of its own
    `@context` (query results carry one where the document's would mislead)."""
    own = event.get("@context")
    if own is None:
        return dict(namespaces)
    merged = {**namespaces, **context_prefixes(own)}
    return {prefix: namespace for prefix, namespace in merged.items() if namespace is not None}


def with_iris_expanded(
    event: Mapping[str, Any], namespaces: Mapping[str, str]
) -> Mapping[str, Any]:
    """`event` with the CURIEs of its IRI-valued standard fields expanded; the event
    itself when nothing changes (most documents bind no prefix)."""
    if not namespaces:
        return event
    copy: dict[str, Any] | None = None
    for path in IRI_FIELDS:
        value = (event if copy is None else copy).get(path[0])
        if value is None:
            continue
        expanded = _expanded(value, path[1:], namespaces)
        if expanded is not value:
            copy = dict(event) if copy is None else copy
            copy[path[0]] = expanded
    return event if copy is None else copy


def _expanded(value: Any, rest: tuple[str, ...], namespaces: Mapping[str, str]) -> Any:
    """`value` with the CURIEs at `rest` expanded; `value` itself when none are."""
    if isinstance(value, str):
        # A value whose text before the first colon is no bound prefix stays as it is:
        # most values of most events (EPC URNs, bare CBV words), checked without a call.
        if rest or value.partition(":")[0] not in namespaces:
            return value
        expanded = expand_curie(value, namespaces)
        return value if expanded == value else expanded
    if isinstance(value, list):
        items = value
        for index, item in enumerate(value):
            if not rest and isinstance(item, str) and item.partition(":")[0] not in namespaces:
                continue
            inner = _expanded(item, rest, namespaces)
            if inner is not item:
                if items is value:
                    items = list(value)
                items[index] = inner
        return items
    if not rest or not isinstance(value, Mapping) or rest[0] not in value:
        return value
    inner = _expanded(value[rest[0]], rest[1:], namespaces)
    return value if inner is value[rest[0]] else {**value, rest[0]: inner}
