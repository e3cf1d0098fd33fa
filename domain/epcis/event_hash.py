"""The CBV 2.0 event hash of an EPCIS 2.0 JSON/JSON-LD event: `ni:///sha-256;<hex>?ver=CBV2.0`.

The pre-hash string is computed as the reference implementation of the algorithm
(RalphTro/epcis-event-hash-generator) computes it, so our ids equal everyone else's:

- `eventType=<type>`, then the standard fields in the canonical order below, each as
  `name=value` (lists as `name` + their sorted members), values canonicalised: timestamps
  to UTC milliseconds with `Z`, numbers without trailing zeros, CBV values to GS1 Web URIs,
  EPCs and other GS1 keys to canonical Digital Link, CURIEs expanded;
- user extensions nested in a standard structure (readPoint, sensorReport, …) follow
  that structure's fields as `{namespace}localName=value`;
- then, sorted as whole strings: bizTransactionList, sourceList, destinationList, ilmd,
  the top-level user extensions and anything else not in the canonical order;
- `eventID`, `recordTime` and `errorDeclaration` are left out, as are comments.

Where the reference depends on accidents of its JSON-LD round trip we take the reading
that does not: bare CBV words are expanded where the EPCIS context types them (not wherever
the same word occurs), a type/value pair hashes type first whatever the JSON key order,
booleans hash as in XML (`true`), and a time that rounds up to the next second carries.
Pure and deterministic: no JSON-LD processing, no network.
"""

import hashlib
import math
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from domain.epcis.cbv import normalise_cbv, replace_cbv_urns
from domain.gs1 import canonical_epc

HASH_PREFIX = "ni:///sha-256;"
HASH_SUFFIX = "?ver=CBV2.0"


# The XML-shaped tree the algorithm is defined on, as (name, text, children) tuples:
# JSON lists become repeated children, as in XML.
_Node = tuple[str, str, list["_Node"]]

# A canonical order: field name → (its position, the order of its own fields if any,
# whether its value is a timestamp).
_Order = dict[str, tuple[int, "_Order | None", bool]]


def _order(*fields: str | tuple[str, "_Order"]) -> _Order:
    order: _Order = {}
    for position, field in enumerate(fields):
        name, inner = (field, None) if isinstance(field, str) else field
        lowered = name.lower()
        order[name] = (position, inner, "time" in lowered and "offset" not in lowered)
    return order


_EPCS = _order("epc")
_QUANTITIES = _order(("quantityElement", _order("epcClass", "quantity", "uom")))
_PLACE = _order("id")
_SENSOR_METADATA = _order(
    "time",
    "startTime",
    "endTime",
    "deviceID",
    "deviceMetadata",
    "rawData",
    "dataProcessingMethod",
    "bizRules",
)
_SENSOR_REPORT = _order(
    "type",
    "exception",
    "deviceID",
    "deviceMetadata",
    "rawData",
    "dataProcessingMethod",
    "time",
    "microorganism",
    "chemicalSubstance",
    "value",
    "component",
    "stringValue",
    "booleanValue",
    "hexBinaryValue",
    "uriValue",
    "minValue",
    "maxValue",
    "meanValue",
    "sDev",
    "percRank",
    "percValue",
    "uom",
    "coordinateReferenceSystem",
)
# bizTransactionList, sourceList and destinationList are not here: the reference
# implementation hashes them among the trailing, sorted fields.
_EVENT_ORDER = _order(
    "eventTime",
    "eventTimeZoneOffset",
    "certificationInfo",
    "parentID",
    ("epcList", _EPCS),
    ("inputEPCList", _EPCS),
    ("childEPCs", _EPCS),
    ("quantityList", _QUANTITIES),
    ("childQuantityList", _QUANTITIES),
    ("inputQuantityList", _QUANTITIES),
    ("outputEPCList", _EPCS),
    ("outputQuantityList", _QUANTITIES),
    "action",
    "transformationID",
    "bizStep",
    "disposition",
    ("persistentDisposition", _order("set", "unset")),
    ("readPoint", _PLACE),
    ("bizLocation", _PLACE),
    (
        "sensorElementList",
        _order(
            (
                "sensorElement",
                _order(("sensorMetadata", _SENSOR_METADATA), ("sensorReport", _SENSOR_REPORT)),
            )
        ),
    ),
)
_NOT_HASHED = frozenset({"eventID", "recordTime", "type", "errorDeclaration"})
_COMMENTS = frozenset({"#text", "rdfs:comment", "comment"})
_PAIR_LISTS = frozenset({"bizTransactionList", "sourceList", "destinationList"})
_PAIR_MEMBERS = frozenset({"bizTransaction", "source", "destination"})
_RENAMED = {
    "inputEPC": "epc",
    "outputEPC": "epc",
    "inputQuantity": "quantityElement",
    "outputQuantity": "quantityElement",
    "childQuantity": "quantityElement",
}

# Where JSON-LD bare words stand for CBV values: scope → field → vocabulary.
_VOCABULARY_FIELDS: dict[str, dict[str, str]] = {
    "event": {"bizStep": "bizStep", "disposition": "disposition"},
    "persistentDisposition": {"set": "disposition", "unset": "disposition"},
    "bizTransaction": {"type": "bizTransactionType"},
    "party": {"type": "sourceDestType"},
    "sensorReport": {
        "type": "measurementType",
        "exception": "sensorException",
        "component": "component",
    },
}
# Scope → field → the scope of the objects in that field.
_NESTED_SCOPES: dict[str, dict[str, str]] = {
    "event": {
        "persistentDisposition": "persistentDisposition",
        "bizTransactionList": "bizTransaction",
        "sourceList": "party",
        "destinationList": "party",
        "sensorElementList": "sensorElement",
    },
    "sensorElement": {"sensorReport": "sensorReport"},
}
_NO_FIELDS: dict[str, str] = {}
_OBJECTS = (dict, Mapping)


def event_hash(
    event: Mapping[str, Any],
    context: Mapping[str, str] | None = None,
    *,
    ignore_fields: Collection[str] = (),
) -> str:
    """The CBV 2.0 hash id of one EPCIS 2.0 JSON event, given its document's prefix map."""
    digest = hashlib.sha256(prehash(event, context, ignore_fields=ignore_fields).encode())
    return HASH_PREFIX + digest.hexdigest() + HASH_SUFFIX


def prehash(
    event: Mapping[str, Any],
    context: Mapping[str, str] | None = None,
    *,
    ignore_fields: Collection[str] = (),
) -> str:
    """The canonical pre-hash string of one event; `ignore_fields` names fields to leave out."""
    namespaces: Mapping[str, str] = context or {}
    event_context = event.get("@context")
    if event_context is not None:
        # An event may carry its own context (query results do): its prefixes count too.
        namespaces = {**namespaces, **_prefixes(event_context)}
    skipped = frozenset(ignore_fields)
    if skipped:
        skipped |= {_expand_name(name, namespaces) for name in skipped}
    children = _object_children(event, namespaces, "event", skipped)
    ordered, remaining = _ordered(children, _EVENT_ORDER)
    trailing = [child for child in remaining if child[0] not in _NOT_HASHED]
    event_type = event.get("type")
    return (
        "eventType="
        + (event_type if isinstance(event_type, str) else "")
        + ordered
        + _generic(trailing)
    )


def document_context(document: Mapping[str, Any]) -> dict[str, str]:
    """The namespace prefixes a document's `@context` declares (prefix → namespace URI).

    Context URLs and term definitions that are objects are skipped.
    """
    context = document.get("@context") if isinstance(document, Mapping) else None
    return _prefixes(context)


def document_ignore_fields(document: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields a document's `ignoreFields` (any namespace) excludes from its events' hashes.

    Found on the document or, in a query document, on `epcisBody.queryResults`.
    """
    holders: list[Mapping[str, Any]] = [document]
    body = document.get("epcisBody")
    if isinstance(body, Mapping) and isinstance(body.get("queryResults"), Mapping):
        holders.append(body["queryResults"])
    names: list[str] = []
    for holder in holders:
        for key, value in holder.items():
            if key == "ignoreFields" or key.endswith(":ignoreFields"):
                values = value if isinstance(value, list) else [value]
                names.extend(name for name in values if isinstance(name, str))
    return tuple(names)


def _prefixes(context: Any) -> dict[str, str]:
    entries = context if isinstance(context, list) else [context]
    prefixes: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, Mapping):
            for prefix, namespace in entry.items():
                named = isinstance(prefix, str) and not prefix.startswith("@")
                if named and isinstance(namespace, str):
                    prefixes[prefix] = namespace
    return prefixes


def _expand_name(name: str, namespaces: Mapping[str, str]) -> str:
    prefix, sep, local = name.partition(":")
    if sep and prefix in namespaces:
        return "{" + namespaces[prefix] + "}" + local
    return name


def _object_children(
    obj: Mapping[str, Any],
    namespaces: Mapping[str, str],
    scope: str | None,
    skipped: Collection[str] = (),
) -> list[_Node]:
    """The children of a JSON object, shaped as in XML: `…List` fields hold their members."""
    vocabulary = _VOCABULARY_FIELDS.get(scope, _NO_FIELDS) if scope else _NO_FIELDS
    nested = _NESTED_SCOPES.get(scope, _NO_FIELDS) if scope else _NO_FIELDS
    children: list[_Node] = []
    groups: dict[str, list[_Node]] = {}
    for key, value in obj.items():
        if key in _COMMENTS or key.startswith("@"):
            continue
        name = _expand_name(key, namespaces) if ":" in key else key
        if skipped and (key in skipped or name in skipped):
            continue
        kind = vocabulary.get(key)
        inner = nested.get(key)
        items = value if isinstance(value, list) else (value,)
        if name.endswith("List"):
            member = name[:-4]
            nodes = [_node(member, item, namespaces, kind, inner) for item in items]
            if name in _PAIR_LISTS:
                members = [_pair(member, node) for node in nodes]
            else:
                members = [_renamed(node) for node in nodes]
        elif name == "childEPCs":
            members = [("epc", _node(name, item, namespaces, None, None)[1], []) for item in items]
        else:
            for item in items:
                node = _node(name, item, namespaces, kind, inner)
                children.append(_renamed(node) if name in _RENAMED or name == "quantity" else node)
            continue
        if members:
            groups.setdefault(name, []).extend(members)
    children.extend((name, "", members) for name, members in groups.items())
    return children


def _node(
    name: str,
    value: Any,
    namespaces: Mapping[str, str],
    kind: str | None,
    scope: str | None,
) -> _Node:
    if isinstance(value, str):
        if ":" in value:
            prefix, _, rest = value.partition(":")
            if prefix in namespaces:
                value = namespaces[prefix] + rest
        return (name, normalise_cbv(kind, value) if kind else value, [])
    if isinstance(value, _OBJECTS):
        text = value.get("#text")
        children = _object_children(value, namespaces, scope)
        return (name, text if isinstance(text, str) else "", children)
    if isinstance(value, list):
        return (name, "", [_node("", item, namespaces, kind, scope) for item in value])
    if isinstance(value, bool):
        # XML spells booleans in lower case, and the JSON hash must equal the XML one.
        return (name, "true" if value else "false", [])
    return (name, "" if value is None else str(value), [])


def _renamed(node: _Node) -> _Node:
    name, text, children = node
    new_name = _RENAMED.get(name)
    if new_name is None and name == "quantity" and children:
        new_name = "quantityElement"
    return node if new_name is None else (new_name, text, children)


def _pair(member_name: str, member: _Node) -> _Node:
    # A nameless node holding type then value: the pair is hashed as `type=…<member>=…`.
    parts = [child for child in member[2] if child[0] == "type"]
    parts += [child for child in member[2] if child[0] == member_name]
    return ("", "", parts)


def _ordered(children: list[_Node], order: _Order) -> tuple[str, list[_Node]]:
    """The pre-hash of the children named in `order`, and the children (or parts) left over."""
    extensions: list[_Node] = []
    if len(children) > 1:
        anchored = False
        for child in children:
            if "eventTime" in child[0] or "action" in child[0]:
                anchored = True
                break
        if not anchored:
            # Inside a standard structure, namespaced extensions follow its standard fields.
            extensions = [child for child in children if _is_nested_extension(child[0])]
            if extensions:
                children = [child for child in children if not _is_nested_extension(child[0])]
    picked: list[tuple[int, str]] = []
    remaining: list[_Node] = []
    for child in children:
        slot = order.get(child[0])
        if slot is None:
            remaining.append(child)
            continue
        text, rest = _ordered_child(child, slot[1], slot[2])
        if text:
            picked.append((slot[0], text))
        if rest is not None:
            remaining.append(rest)
    # Fields in canonical order; repeated fields (list members) sorted among themselves.
    picked.sort()
    ordered = "".join([text for _, text in picked])
    return (ordered + _generic(extensions) if extensions else ordered), remaining


def _is_nested_extension(name: str) -> bool:
    # The reference recognises `{namespace}local` only for namespaces ending in '/'.
    return "{" in name and "/}" in name


def _ordered_child(
    child: _Node, sub_order: _Order | None, is_time: bool
) -> tuple[str, _Node | None]:
    name, raw, children = child
    nested = ""
    if sub_order is not None:
        nested, children = _ordered(children, sub_order)
    text = raw.strip()
    if text:
        text = _utc_milliseconds(text) if is_time else _canonical_value(text)
    rest = (name, raw, children) if children else None
    if not text and not nested:
        return "", rest
    return name + ("=" + text if text else "") + nested, rest


def _generic(children: list[_Node]) -> str:
    """Fields outside the canonical order: `name=value` and nested content, sorted."""
    values = []
    is_pair = False
    for name, raw, inner in children:
        text = raw.strip()
        value = name + "=" + _canonical_value(text) if text else name
        values.append(value + _generic(inner) if inner else value)
        is_pair = is_pair or name in _PAIR_MEMBERS
    # A type/value pair keeps its order; everything else is sorted.
    if not is_pair:
        values.sort()
    return "".join(values)


# Values repeat across events (places, classes, vocabulary): remember their canonical form.
@lru_cache(maxsize=65536)
def _canonical_value(text: str) -> str:
    """A value with CBV URNs as Web URIs, numbers in canonical form, EPCs as Digital Link."""
    return canonical_epc(_number(replace_cbv_urns(text)))


def _number(text: str) -> str:
    """A numeric text in Python's shortest float spelling, integral values without `.0`."""
    first = text[0]
    if (first.isascii() and first.isalpha() and first not in "iInN") or ":" in text:
        return text
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return str(int(number)) if number.is_integer() else str(number)


def _utc_milliseconds(text: str) -> str:
    """An ISO 8601 date-time in UTC at millisecond precision, e.g. `2020-04-01T14:00:00.000Z`.

    Microseconds round half to even to milliseconds, as the reference does; a date-time
    without offset is taken as UTC.
    """
    try:
        moment = datetime.fromisoformat(text)
        micros = moment.microsecond
        millis, remainder = divmod(micros, 1000)
        if remainder:
            if remainder > 500 or (remainder == 500 and millis % 2 == 1):
                millis += 1
            moment += timedelta(microseconds=millis * 1000 - micros)
        offset = moment.utcoffset()
        if offset:
            moment -= offset
        return moment.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"
    except (ValueError, OverflowError):
        return text
