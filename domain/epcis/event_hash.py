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
booleans hash as in XML (`true`), a time that rounds up to the next second carries, and
`gs1:`, `cbv:` and `epcis:` are expanded where the document leaves them unbound (rule 15
of the algorithm; the reference's JSON path keeps them literal there).
Pure and deterministic: no JSON-LD processing, no network.

Two paths compute the string. The tree builds the XML-shaped tree the algorithm is defined
on and walks it: it takes any event. The direct path writes the standard fields of their
usual shapes straight from the JSON values and gives every other field to the tree; it is
several times quicker, and where it answers the answer is the tree's (the tests hold the
two side by side).

Both paths read one set of tables: the canonical order of fields (`hash_order.py`) and
the canonical form of values (`hash_values.py`), so they cannot disagree on either.
"""

import hashlib
from collections.abc import Callable, Collection, Mapping
from typing import Any

from domain.epcis.cbv import normalise_cbv
from domain.epcis.curies import context_prefixes, event_namespaces
from domain.epcis.hash_order import (
    COMMENTS,
    EVENT_ORDER,
    NESTED_SCOPES,
    NOT_HASHED,
    PAIR_LISTS,
    PAIR_MEMBERS,
    RENAMED,
    VOCABULARY_FIELDS,
    Order,
)
from domain.epcis.hash_values import canonical_text, canonical_value, utc_milliseconds

HASH_PREFIX = "ni:///sha-256;"
HASH_SUFFIX = "?ver=CBV2.0"

#: The CURIE prefixes the algorithm expands in every event (its rule 15: "This also holds
#: true for standard CBV values, i.e. with the CURIE prefix expansions 'gs1', 'epcis' and
#: 'cbv'", e.g. `gs1:Temperature` → `https://gs1.org/voc/Temperature`), beneath those the
#: event's document or its own `@context` binds. The reference's JSON path expands them
#: only where the document binds them itself; stored ids computed that way are kept
#: (`expand_standard_prefixes=False` gives that earlier hash; see `earlier_hash.py`).
STANDARD_PREFIXES = {
    "gs1": "https://gs1.org/voc/",
    "epcis": "https://ref.gs1.org/epcis/",
    "cbv": "https://ref.gs1.org/cbv/",
}


# The XML-shaped tree the algorithm is defined on, as (name, text, children) tuples:
# JSON lists become repeated children, as in XML.
_Node = tuple[str, str, list["_Node"]]

_NO_FIELDS: dict[str, str] = {}
_OBJECTS = (dict, Mapping)


def event_hash(
    event: Mapping[str, Any],
    context: Mapping[str, str] | None = None,
    *,
    ignore_fields: Collection[str] = (),
    expand_standard_prefixes: bool = True,
) -> str:
    """The CBV 2.0 hash id of one EPCIS 2.0 JSON event, given its document's prefix map."""
    text = prehash(
        event,
        context,
        ignore_fields=ignore_fields,
        expand_standard_prefixes=expand_standard_prefixes,
    )
    return HASH_PREFIX + hashlib.sha256(text.encode()).hexdigest() + HASH_SUFFIX


def prehash(
    event: Mapping[str, Any],
    context: Mapping[str, str] | None = None,
    *,
    ignore_fields: Collection[str] = (),
    expand_standard_prefixes: bool = True,
) -> str:
    """The canonical pre-hash string of one event; `ignore_fields` names fields to leave out."""
    base = {**STANDARD_PREFIXES, **(context or {})} if expand_standard_prefixes else context
    # An event may carry its own context (query results do): its prefixes count too.
    namespaces = event_namespaces(event, base or {})
    skipped = frozenset(ignore_fields)
    if skipped:
        skipped |= {_expand_name(name, namespaces) for name in skipped}
    fields = _direct_prehash(event, namespaces, skipped)
    if fields is None:
        fields = _tree_prehash(event, namespaces, skipped)
    event_type = event.get("type")
    # An extension event's type is an IRI, and may be written as a CURIE.
    event_type = _expand_value(event_type, namespaces) if isinstance(event_type, str) else ""
    return "eventType=" + event_type + fields


def document_context(document: Mapping[str, Any]) -> dict[str, str]:
    """The namespace prefixes a document's `@context` declares (prefix → namespace URI).

    Context URLs and term definitions that are objects are skipped.
    """
    context = document.get("@context") if isinstance(document, Mapping) else None
    return {p: ns for p, ns in context_prefixes(context).items() if ns is not None}


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
    slots = [""] * len(EVENT_ORDER)
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
        elif key in PAIR_MEMBERS:
            return None
        elif key not in NOT_HASHED:
            others[key] = value
    if others:
        children = _object_children(others, namespaces, "event", skipped)
        tree_picked, remaining = _picked(children, EVENT_ORDER)
        # A field repeated (a list where one value belongs) has its values sorted.
        tree_picked.sort()
        for position, text in tree_picked:
            slots[position] += text
        trailing += [_rendered(child) for child in remaining if child[0] not in NOT_HASHED]
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
    return name + "=" + utc_milliseconds(text) if text else ""


def _direct_text(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """A single-valued field (`action`, `parentID`, …): `name=<canonical value>`."""
    if not isinstance(value, str):
        return None
    text = _expand_value(value, namespaces).strip()
    return name + "=" + canonical_value(text) if text else ""


def _direct_cbv(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """`bizStep` or `disposition`: a bare CBV word expanded, then as any other value."""
    if not isinstance(value, str):
        return None
    text = normalise_cbv(_EVENT_VOCABULARY[name], _expand_value(value, namespaces)).strip()
    return name + "=" + canonical_value(text) if text else ""


def _direct_epcs(name: str, value: Any, namespaces: Mapping[str, str]) -> str | None:
    """An EPC list of strings (`epcList`, `childEPCs`, …): `name`, then `epc=…` sorted."""
    items = value if isinstance(value, list) else (value,)
    members = []
    for item in items:
        if not isinstance(item, str):
            return None
        text = _expand_value(item, namespaces).strip()
        if text:
            members.append("epc=" + canonical_text(text))
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
    return name + "id=" + canonical_value(text) if text else ""


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
    return name + "=" + canonical_value(text) if text else name


_EVENT_VOCABULARY = VOCABULARY_FIELDS["event"]
# Pair list → (its member's name, the vocabulary of its type, the keys a member may have).
_PAIR_SHAPES: dict[str, tuple[str, str, frozenset[str]]] = {
    name: (name[:-4], VOCABULARY_FIELDS[scope]["type"], frozenset({"type", name[:-4]}))
    for name, scope in NESTED_SCOPES["event"].items()
    if name in PAIR_LISTS
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
    **{name: (EVENT_ORDER[name][0], path) for path, names in _DIRECT_PATHS for name in names},
    **dict.fromkeys(_PAIR_SHAPES, (None, _direct_pairs)),
}


# --- The tree: the general path, for any event. ---


def _tree_prehash(
    event: Mapping[str, Any], namespaces: Mapping[str, str], skipped: Collection[str]
) -> str:
    """The pre-hash of an event's fields through the XML-shaped tree."""
    children = _object_children(event, namespaces, "event", skipped)
    ordered, remaining = _ordered(children, EVENT_ORDER)
    trailing = [child for child in remaining if child[0] not in NOT_HASHED]
    return ordered + _generic(trailing)


def _object_children(
    obj: Mapping[str, Any],
    namespaces: Mapping[str, str],
    scope: str | None,
    skipped: Collection[str] = (),
) -> list[_Node]:
    """The children of a JSON object, shaped as in XML: `…List` fields hold their members."""
    vocabulary = VOCABULARY_FIELDS.get(scope, _NO_FIELDS) if scope else _NO_FIELDS
    nested = NESTED_SCOPES.get(scope, _NO_FIELDS) if scope else _NO_FIELDS
    children: list[_Node] = []
    groups: dict[str, list[_Node]] = {}
    for key, value in obj.items():
        if key in COMMENTS or key.startswith("@"):
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
            if name in PAIR_LISTS:
                members = [_pair(member, node) for node in nodes]
            else:
                members = [_renamed(node) for node in nodes]
        elif name == "childEPCs":
            members = [("epc", _node(name, item, namespaces, None, None)[1], []) for item in items]
        else:
            for item in items:
                node = _node(name, item, namespaces, kind, inner)
                children.append(_renamed(node) if name in RENAMED or name == "quantity" else node)
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
    new_name = RENAMED.get(name)
    if new_name is None and name == "quantity" and children:
        new_name = "quantityElement"
    return node if new_name is None else (new_name, text, children)


def _pair(member_name: str, member: _Node) -> _Node:
    # A nameless node holding type then value: the pair is hashed as `type=…<member>=…`.
    parts = [child for child in member[2] if child[0] == "type"]
    parts += [child for child in member[2] if child[0] == member_name]
    return ("", "", parts)


def _ordered(children: list[_Node], order: Order) -> tuple[str, list[_Node]]:
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


def _picked(children: list[_Node], order: Order) -> tuple[list[tuple[int, str]], list[_Node]]:
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
    child: _Node, sub_order: Order | None, is_time: bool
) -> tuple[str, _Node | None]:
    name, raw, children = child
    nested = ""
    if sub_order is not None:
        nested, children = _ordered(children, sub_order)
    text = raw.strip()
    if text:
        text = utc_milliseconds(text) if is_time else canonical_value(text)
    rest = (name, raw, children) if children else None
    if not text and not nested:
        return "", rest
    return name + ("=" + text if text else "") + nested, rest


def _generic(children: list[_Node]) -> str:
    """Fields outside the canonical order: `name=value` and nested content, sorted."""
    values = [_rendered(child) for child in children]
    # A type/value pair keeps its order; everything else is sorted.
    if not any(child[0] in PAIR_MEMBERS for child in children):
        values.sort()
    return "".join(values)


def _rendered(node: _Node) -> str:
    """One field outside the canonical order: `name=value` or `name`, then its content."""
    name, raw, inner = node
    value = _part(name, raw)
    return value + _generic(inner) if inner else value
