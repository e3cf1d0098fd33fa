"""Field selection: what the `fields` parameter reads of a collection and its relations,
and which fields never leave the service."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.collections.paths import (
    PathRules,
    enter_relation,
    follow_relation,
    path_segments,
    readable,
    readable_member,
)
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema

#: What a concealed field reads as when it holds a value.
CONCEALED = "**********"

# A bound that keeps hostile input from costing more than a clear error.
_MAX_NESTED_SELECTIONS = 500


def is_concealed(field: Field) -> bool:
    """Whether a field's values never leave the service: concealed fields and hashes."""
    return field.concealed or field.type is FieldType.HASH


@dataclass(frozen=True)
class Selection:
    """What the `fields` parameter reads of one collection.

    `keys` are the output keys in order: stored fields, then aliases. A key in `nested`
    is read as the related item(s) with that selection; an alias key that is not nested
    is read as the list of its items' primary keys.
    """

    collection: str
    keys: tuple[str, ...]
    nested: tuple[tuple[str, Selection], ...] = ()

    def child(self, key: str) -> Selection | None:
        """The selection of the items `key` leads to, or None when `key` is read flat."""
        return next((selection for name, selection in self.nested if name == key), None)


@dataclass
class _Node:
    names: set[str] = dataclasses.field(default_factory=set)
    children: dict[str, _Node] = dataclasses.field(default_factory=dict)


class _SelectionBuilder:
    def __init__(self, schema: Schema, allowed: Mapping[str, frozenset[str]] | None) -> None:
        self._rules = PathRules(schema, allowed, "query")
        self._nodes = 0

    def add(self, node: _Node, collection: Collection, segments: list[str], path: str) -> None:
        head, rest = segments[0], segments[1:]
        if head == "*":
            self._add_wildcard(node, collection, rest, path)
            return
        member = readable_member(collection, head, self._rules)
        if not rest:
            if isinstance(member, Alias):
                target = enter_relation(member, collection, self._rules)
                readable_member(target, target.primary_key, self._rules)
            node.names.add(head)
            return
        target = enter_relation(member, collection, self._rules)
        self.add(self._child(node, head), target, rest, path)

    def _add_wildcard(
        self, node: _Node, collection: Collection, rest: list[str], path: str
    ) -> None:
        if any(segment != "*" for segment in rest):
            raise QueryError(f'Invalid field path "{path}": "*" can only be followed by "*".')
        node.names.update(
            f.name
            for f in collection.fields
            if readable(self._rules.allowed, collection.name, f.name)
        )
        if not rest:
            return
        for name, target in self._relations(collection):
            self.add(self._child(node, name), target, rest, path)

    def _relations(self, collection: Collection) -> list[tuple[str, Collection]]:
        """Relational members the caller may read, leading to a collection they may read."""
        schema, allowed = self._rules.schema, self._rules.allowed
        links = [(f.name, f.relation) for f in collection.fields if f.relation is not None]
        links += [(a.name, a.collection) for a in collection.aliases]
        return [
            (name, schema[target])
            for name, target in links
            if readable(allowed, collection.name, name)
            and any(readable(allowed, target, f.name) for f in schema[target].fields)
        ]

    def _child(self, node: _Node, name: str) -> _Node:
        if name not in node.children:
            self._nodes += 1
            if self._nodes > _MAX_NESTED_SELECTIONS:
                raise QueryError("Too many related fields requested.")
            node.children[name] = _Node()
        return node.children[name]

    def freeze(self, node: _Node, collection: Collection) -> Selection:
        names = node.names | node.children.keys()
        keys = [f.name for f in collection.fields if f.name in names]
        keys += [a.name for a in collection.aliases if a.name in names]
        nested = []
        for key in keys:
            child = node.children.get(key)
            if child is not None:
                target = _related_collection(collection, key, self._rules.schema)
                nested.append((key, self.freeze(child, target)))
        return Selection(collection.name, tuple(keys), tuple(nested))


def _related_collection(collection: Collection, name: str, schema: Schema) -> Collection:
    link = collection.alias(name)
    if link is not None:
        return schema[link.collection]
    member = collection.field(name)
    if member is None:
        raise FieldForbidden(name, collection.name)
    return follow_relation(member, collection, schema)


def select(
    fields: Sequence[str],
    collection: Collection,
    schema: Schema,
    allowed_fields: Mapping[str, frozenset[str]] | None = None,
) -> Selection:
    """What `fields` reads: `*` is every readable stored field, `*.*` adds one level of
    relations (aliases included), `rel.*` / `rel.field` nest the related item(s), and a
    bare alias reads its items' keys. Naming a missing or unreadable field raises
    FieldForbidden; `*` skips what may not be read.

    With `allowed_fields` given, a collection absent from it cannot be read at all:
    `rel.*`, `rel.field` or a bare alias into it raise FieldForbidden on `rel`, and `*.*`
    does not expand into it (nor into one of whose fields none is readable): a
    many-to-one field there stays its bare key, as `*` reads it when the field itself is
    readable, and a to-many alias is left out.
    """
    builder = _SelectionBuilder(schema, allowed_fields)
    root = _Node()
    for path in fields:
        builder.add(root, collection, path_segments(path), path)
    return builder.freeze(root, collection)
