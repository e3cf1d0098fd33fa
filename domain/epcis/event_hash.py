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

Two paths compute the string. The tree builds the XML-shaped tree the algorithm is defined
on and walks it: it takes any event. The direct path writes the standard fields of their
usual shapes straight from the JSON values and gives every other field to the tree; it is
several times quicker, and where it answers the answer is the tree's (the tests hold the
two side by side).

Why one module of ~650 lines: both paths must produce the same string from the same
canonical tables (field order, CBV typing, value canonicalisation); kept side by side, a
change to one path is seen next to the other. Split, the two would drift.
"""

import hashlib
import math
import re
from collections.abc import Callable, Collection, Mapping
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
    fields = _direct_prehash(event, namespaces, skipped)
    if fields is None:
        fields = _tree_prehash(event, namespaces, skipped)
    event_type = event.get("type")
    return "eventType=" + (event_type if isinstance(event_type, str) else "") + fields


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


def _expand_value(value: str, namespaces: Mapping[str, str]) -> str:
    """A string value with a declared CURIE prefix expanded (`ex:widget` → `<ex>widget`)."""
    # Most documents declare no prefix: then there is nothing to look for.
    if namespaces and ":" in value:
        prefix, _, rest = value.partition(":")
        if prefix in namespaces:
            return namespaces[prefix] + rest
    return value


# --- The direct path: the usual fields of the usual events, rendered from their values. ---


def _direct_prehash(
    event: Mapping[str, Any], namespaces: Mapping[str, str], skipped: Collection[str]
) -> str | None:
    """The pre-hash of an event's fields, the usual ones written straight from their values.

    Wherever it answers, the answer is `_tree_prehash`'s, only without building the tree. At
    the top level of an event with an `eventTime` or `action` the tree takes each field on
    its own: it goes to its canonical position or among the trailing fields, which are
    sorted as whole strings. So each field can take its own path: standard fields of the
    usual shapes (a string, a list of EPC strings, a place with only an `id`, a list of
    type/value string pairs) are rendered here, any other field goes through the tree.

    None for events the tree treats as a whole: without an anchor it moves namespaced
    extensions after the standard fields, and with a bare `bizTransaction`, `source` or
    `destination` field it keeps the trailing fields in JSON order.
    """
    if not _is_anchored(event, skipped):
        return None
    # One slot per canonical position. A direct field and a field through the tree never
    # share one: a position belongs to one standard name, and only that key has that name.
    slots = [""] * len(_EVENT_ORDER)
    trailing: list[str] = []
    others: dict[str, Any] = {}
    for key, value in event.items():
        direct = _DIRECT.get(key)
        if direct is not None and key not in skipped:
            position, render = direct
            text = render(key, value, namespaces)
            if text is None:
                others[key] = value
            elif position is None:
                trailing.append(text)
            else:
                slots[position] = text
        elif key in _PAIR_MEMBERS:
            return None
        elif key not in _NOT_HASHED:
            others[key] = value
    if others:
        children = _object_children(others, namespaces, "event", skipped)
        tree_picked, remaining = _picked(children, _EVENT_ORDER)
        # A field repeated (a list where one value belongs) has its values sorted.
        tree_picked.sort()
        for position, text in tree_picked:
            slots[position] += text
        trailing += [_rendered(child) for child in remaining if child[0] not in _NOT_HASHED]
    trailing.sort()
    return "".join(slots) + "".join(trailing)


def _is_anchored(event: Mapping[str, Any], skipped: Collection[str]) -> bool:
    """Whether the event has an `eventTime` or `action` string, not ignored.

    The tree takes a top-level field whose name holds `eventTime` or `action` as the sign
    of an event, and only then leaves namespaced extensions among the trailing fields.
    """
    for name in ("eventTime", "action"):
        if isinstance(event.get(name), str) and name not in skipped:
            return True
    return False


# Each direct path takes a field's name, its JSON value and the prefix map, and gives the
# field's pre-hash text ("" for none), or None when the value is not of the usual shape.
_DirectPath = Callable[[str, Any, Mapping[str, str]], str | None]


def _direct_time(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """`eventTime`: `name=<UTC milliseconds>`."""
    if not isinstance(value, str):
        return None
    text = _expand_value(value, namespaces).strip()
    return name + "=" + _utc_milliseconds(text) if text else ""


def _direct_text(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """A single-valued field (`action`, `parentID`, …): `name=<canonical value>`."""
    if not isinstance(value, str):
        return None
    text = _expand_value(value, namespaces).strip()
    return name + "=" + _canonical_value(text) if text else ""


def _direct_cbv(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """`bizStep` or `disposition`: a bare CBV word expanded, then as any other value."""
    if not isinstance(value, str):
        return None
    text = normalise_cbv(_EVENT_VOCABULARY[name], _expand_value(value, namespaces)).strip()
    return name + "=" + _canonical_value(text) if text else ""


def _direct_epcs(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """An EPC list of strings (`epcList`, `childEPCs`, …): `name`, then `epc=…` sorted."""
    items = value if isinstance(value, list) else (value,)
    members = []
    for item in items:
        if not isinstance(item, str):
            return None
        text = _expand_value(item, namespaces).strip()
        if text:
            members.append("epc=" + _canonical_text(text))
    members.sort()
    return name + "".join(members) if members else ""


def _direct_place(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """`readPoint` or `bizLocation` holding nothing but an `id` string: `name` + `id=…`."""
    if not isinstance(value, _OBJECTS) or len(value) != 1:
        return None
    place = value.get("id")
    if not isinstance(place, str):
        return None
    text = _expand_value(place, namespaces).strip()
    return name + "id=" + _canonical_value(text) if text else ""


def _direct_pairs(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """A `bizTransactionList`, `sourceList` or `destinationList` of type/value strings.

    `name`, then each member as `type=…` followed by `<member>=…` whatever the JSON key
    order (either may be missing; an empty one is rendered as its bare name), sorted.
    """
    member, kind, keys = _PAIR_SHAPES[name]
    items = value if isinstance(value, list) else (value,)
    pairs = []
    for item in items:
        if not isinstance(item, _OBJECTS) or not item.keys() <= keys:
            return None
        pair = ""
        if "type" in item:
            pair_type = item["type"]
            if not isinstance(pair_type, str):
                return None
            pair = _part("type", normalise_cbv(kind, _expand_value(pair_type, namespaces)))
        if member in item:
            pair_value = item[member]
            if not isinstance(pair_value, str):
                return None
            pair += _part(member, _expand_value(pair_value, namespaces))
        pairs.append(pair)
    pairs.sort()
    return name + "".join(pairs) if items else ""


def _part(name: str, raw: str) -> str:
    """One field of a nested object as the tree renders it: `name=<value>`, or just `name`."""
    text = raw.strip()
    return name + "=" + _canonical_value(text) if text else name


_EVENT_VOCABULARY = _VOCABULARY_FIELDS["event"]
# Pair list → (its member's name, the vocabulary of its type, the keys a member may have).
_PAIR_SHAPES: dict[str, tuple[str, str, frozenset[str]]] = {
    name: (name[:-4], _VOCABULARY_FIELDS[scope]["type"], frozenset({"type", name[:-4]}))
    for name, scope in _NESTED_SCOPES["event"].items()
    if name in _PAIR_LISTS
}
_DIRECT_PATHS: tuple[tuple[_DirectPath, tuple[str, ...]], ...] = (
    (_direct_time, ("eventTime",)),
    (
        _direct_text,
        ("eventTimeZoneOffset", "certificationInfo", "parentID", "action", "transformationID"),
    ),
    (_direct_epcs, ("epcList", "inputEPCList", "childEPCs", "outputEPCList")),
    (_direct_cbv, tuple(_EVENT_VOCABULARY)),
    (_direct_place, ("readPoint", "bizLocation")),
)
# Field → (its canonical position, or None for the trailing sorted fields; its direct path).
_DIRECT: dict[str, tuple[int | None, _DirectPath]] = {
    **{name: (_EVENT_ORDER[name][0], path) for path, names in _DIRECT_PATHS for name in names},
    **dict.fromkeys(_PAIR_SHAPES, (None, _direct_pairs)),
}


# --- The tree: the general path, for any event. ---


def _tree_prehash(
    event: Mapping[str, Any], namespaces: Mapping[str, str], skipped: Collection[str]
) -> str:
    """The pre-hash of an event's fields through the XML-shaped tree."""
    children = _object_children(event, namespaces, "event", skipped)
    ordered, remaining = _ordered(children, _EVENT_ORDER)
    trailing = [child for child in remaining if child[0] not in _NOT_HASHED]
    return ordered + _generic(trailing)


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
        value = _expand_value(value, namespaces)
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
    picked, remaining = _picked(children, order)
    # Fields in canonical order; repeated fields (list members) sorted among themselves.
    picked.sort()
    ordered = "".join([text for _, text in picked])
    return (ordered + _generic(extensions) if extensions else ordered), remaining


def _picked(children: list[_Node], order: _Order) -> tuple[list[tuple[int, str]], list[_Node]]:
    """The pre-hash of each child named in `order` with its position, and what is left over."""
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
    return picked, remaining


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
    values = [_rendered(child) for child in children]
    # A type/value pair keeps its order; everything else is sorted.
    if not any(child[0] in _PAIR_MEMBERS for child in children):
        values.sort()
    return "".join(values)


def _rendered(node: _Node) -> str:
    """One field outside the canonical order: `name=value` or `name`, then its content."""
    name, raw, inner = node
    value = _part(name, raw)
    return value + _generic(inner) if inner else value


def _canonical_text(text: str) -> str:
    """A value with CBV URNs as Web URIs, numbers in canonical form, EPCs as Digital Link."""
    return canonical_epc(_number(replace_cbv_urns(text)))


# Values repeat across events (places, classes, vocabulary): remember their canonical form.
# EPCs do not (each object is captured anew), so EPC lists call `_canonical_text` directly.
_canonical_value = lru_cache(maxsize=65536)(_canonical_text)


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


# A date-time already in the canonical form: UTC, milliseconds, `Z`. Hours stop at 23:
# whatever `datetime` makes of 24:00, it is left to `datetime` to make it.
_CANONICAL_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
)


def _utc_milliseconds(text: str) -> str:
    """An ISO 8601 date-time in UTC at millisecond precision, e.g. `2020-04-01T14:00:00.000Z`.

    Microseconds round half to even to milliseconds, as the reference does; a date-time
    without offset is taken as UTC.
    """
    if _CANONICAL_TIME.fullmatch(text):
        # Most producers write this form: parsing it would give it back, or fail on an
        # impossible date (30 February) and so give it back as written all the same.
        return text
    try:
        moment = datetime.fromisoformat(text)
        micros = moment.microsecond
        millis, remainder = divmod(micros, 1000)
        if remainder:
            if remainder > 500 or (remainder == 500 and millis % 2 == 1):
                millis += 1
            # Rounding up to 1000 ms carries into the second (and so on): let datetime do it.
            moment += timedelta(microseconds=millis * 1000 - micros)
        offset = moment.utcoffset()
        if offset:
            moment -= offset
    except (ValueError, OverflowError):
        return text
    # isoformat() opens with `YYYY-MM-DDTHH:MM:SS` whatever follows, and is much quicker
    # without `timespec` (and than replace(tzinfo=None)). An offset may carry microseconds.
    return f"{moment.isoformat()[:19]}.{moment.microsecond // 1000:03d}Z"
