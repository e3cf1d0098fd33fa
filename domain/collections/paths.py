"""Field paths through a collection schema: which members exist and may be read, and
which collections their relations lead to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from domain.collections.filters import Purpose
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field, Schema

#: Most field names a path may chain, across relations (Directus MAX_RELATIONAL_DEPTH).
MAX_RELATIONAL_DEPTH = 10


@dataclass(frozen=True)
class PathRules:
    """What a path may reach: the schema, the readable fields (None: all), the filter's purpose."""

    schema: Schema
    allowed: Mapping[str, frozenset[str]] | None
    purpose: Purpose


def readable_member(collection: Collection, name: str, rules: PathRules) -> Field | Alias:
    """The stored field or alias `name`, if it exists and may be read."""
    member = collection.field(name) or collection.alias(name)
    if member is None or not readable(rules.allowed, collection.name, name):
        raise FieldForbidden(name, collection.name)
    return member


def follow_relation(member: Field, collection: Collection, schema: Schema) -> Collection:
    """The collection a many-to-one field leads to; QueryError when it is no relation."""
    if member.relation is None:
        raise QueryError(f'"{member.name}" in collection "{collection.name}" is not a relation.')
    return schema[member.relation]


def enter_relation(member: Field | Alias, collection: Collection, rules: PathRules) -> Collection:
    """The collection a path crosses into through `member`. With `allowed` given, a
    collection absent from it may not be read at all, so crossing into it is forbidden
    (FieldForbidden on `member`), even where no field of it is named (`rel.*`, an empty
    `_some`/`_none`): otherwise its items would still be counted or tested for."""
    if isinstance(member, Alias):
        target = rules.schema[member.collection]
    else:
        target = follow_relation(member, collection, rules.schema)
    if rules.allowed is not None and target.name not in rules.allowed:
        raise FieldForbidden(member.name, collection.name)
    return target


def readable(allowed: Mapping[str, frozenset[str]] | None, collection: str, name: str) -> bool:
    """Whether `allowed` (None: everything) lets the caller read `name` of `collection`."""
    if allowed is None:
        return True
    names = allowed.get(collection)
    return names is not None and ("*" in names or name in names)


def path_segments(path: str) -> list[str]:
    """The field names of a dotted path (`fields`, `sort`); QueryError when malformed."""
    segments = path.split(".")
    if not all(segments):
        raise QueryError(f'Invalid field path "{path}".')
    if any("(" in segment for segment in segments):
        raise QueryError(f'Field functions such as "{path}" are not supported.')
    if len(segments) > MAX_RELATIONAL_DEPTH:
        raise QueryError("Max relational depth exceeded.")
    return segments
