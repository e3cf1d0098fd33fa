"""Field selection: what the `fields` parameter reads of a collection and its relations,
and which fields never leave the service."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.collections.deep import Aliases, Deep, NestedQuery
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

    `keys` are the output keys in order: stored fields, to-many relations, then keys that
    `alias` names (read from the member `source` gives). A key in `nested` reads the
    related item(s) with that selection; `query` says which items a relation reading this
    selection chooses (`deep`); a `keys_only` selection reads a to-many relation as the
    list of its items' primary keys.
    """

    collection: str
    keys: tuple[str, ...]
    nested: tuple[tuple[str, Selection], ...] = ()
    sources: tuple[tuple[str, str], ...] = ()
    query: NestedQuery = dataclasses.field(default_factory=NestedQuery)
    keys_only: bool = False

    def child(self, key: str) -> Selection | None:
        """The selection of the items `key` leads to, or None when `key` is read flat."""
        return next((selection for name, selection in self.nested if name == key), None)

    def source(self, key: str) -> str:
        """The member an output key reads: itself, or the field an alias names."""
        return next((source for name, source in self.sources if name == key), key)


@dataclass
class _Node:
    query: NestedQuery = dataclasses.field(default_factory=NestedQuery)
    names: set[str] = dataclasses.field(default_factory=set)
    children: dict[str, _Node] = dataclasses.field(default_factory=dict)

    def source(self, key: str) -> str:
        return dict(self.query.alias).get(key, key)

    def deep(self, key: str) -> NestedQuery:
        return dict(self.query.deep).get(key, NestedQuery())


class _SelectionBuilder:
    def __init__(self, schema: Schema, allowed: Mapping[str, frozenset[str]] | None) -> None:
        self._rules = PathRules(schema, allowed, "query")
        self._nodes = 0

    def add(self, node: _Node, collection: Collection, segments: list[str], path: str) -> None:
        head, rest = segments[0], segments[1:]
        if head == "*":
            self._add_wildcard(node, collection, rest, path)
            return
        member = readable_member(collection, node.source(head), self._rules)
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
        allowed = self._rules.allowed
        node.names.update(
            f.name for f in collection.fields if readable(allowed, collection.name, f.name)
        )
        # To-many relations read as their items' keys, as Directus reads them under "*";
        # not those into collections the service alone writes, which grow with use
        # without bound (a job's million codes, a flow's runs): they are read by name.
        node.names.update(
            name
            for name, target in self._relations(collection, aliases_only=True)
            if readable(allowed, target.name, target.primary_key)
            and not (target.bulk or target.read_only)
        )
        if not rest:
            return
        for name, target in self._relations(collection):
            self.add(self._child(node, name), target, rest, path)

    def _relations(
        self, collection: Collection, aliases_only: bool = False
    ) -> list[tuple[str, Collection]]:
        """Relational members the caller may read, leading to a collection they may read."""
        schema, allowed = self._rules.schema, self._rules.allowed
        links = (
            []
            if aliases_only
            else [(f.name, f.relation) for f in collection.fields if f.relation is not None]
        )
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
            node.children[name] = _Node(node.deep(name))
        return node.children[name]

    def freeze(self, node: _Node, collection: Collection, keys_only: bool = False) -> Selection:
        names = node.names | node.children.keys()
        sources = {name: node.source(name) for name in names}
        order = [f.name for f in collection.fields] + [a.name for a in collection.aliases]
        keys = sorted(
            names,
            key=lambda name: (order.index(sources[name]), name != sources[name], name),
        )
        nested = []
        for key in keys:
            child = node.children.get(key)
            link = collection.alias(sources[key])
            if child is not None:
                target = _related_collection(collection, sources[key], self._rules.schema)
                nested.append((key, self.freeze(child, target)))
            elif link is not None:
                target = self._rules.schema[link.collection]
                keys_node = _Node(node.deep(key), {target.primary_key})
                nested.append((key, self.freeze(keys_node, target, keys_only=True)))
        return Selection(
            collection.name,
            tuple(keys),
            tuple(nested),
            tuple((name, source) for name, source in sources.items() if name != source),
            node.query,
            keys_only,
        )


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
    *,
    alias: Aliases = (),
    deep: Deep = (),
) -> Selection:
    """What `fields` reads: `*` is every readable stored field and every to-many relation
    (as its items' keys; not those into `bulk` or `read_only` collections), `*.*` adds
    one level of relations, `rel.*` / `rel.field` nest the related item(s), and a bare
    to-many relation reads its items' keys. An `alias` key reads the field it names,
    `deep` chooses the related items each relation reads.
    Naming a missing or unreadable field raises FieldForbidden; `*` skips what may not be
    read.

    With `allowed_fields` given, a collection absent from it cannot be read at all:
    `rel.*`, `rel.field` or a bare alias into it raise FieldForbidden on `rel`, and `*`
    or `*.*` do not expand into it (nor into one of whose fields none is readable): a
    many-to-one field there stays its bare key, as `*` reads it when the field itself is
    readable, and a to-many relation is left out.
    """
    builder = _SelectionBuilder(schema, allowed_fields)
    root = _Node(NestedQuery(alias=alias, deep=deep))
    for path in fields:
        builder.add(root, collection, path_segments(path), path)
    return builder.freeze(root, collection)
