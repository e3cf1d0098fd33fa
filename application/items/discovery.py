"""Schema discovery: the collections, fields and relations a caller may read, described
as Directus describes them (`/collections`, `/fields`, `/relations`).

Administrators see the whole schema. Everyone else, the public included, sees the
collections they may read, the fields their read permission names, and the relations
whose both ends they may read. A collection or field named in the path that the caller
may not read, or that does not exist, is FORBIDDEN: the answer never tells which.
"""

from collections.abc import Iterable
from functools import cached_property

from application.items.catalogue import directus_name
from application.items.descriptions import (
    Description,
    collection_description,
    field_descriptions,
    relation_descriptions,
)
from application.items.permissions import no_collection, no_field
from application.service.errors import Forbidden
from domain.access.policies import Accountability, CollectionAccess
from domain.collections.schema import Collection, Schema

#: What an administrator may read of any collection.
_EVERYTHING = CollectionAccess(rule=None, fields=("*",), validation=(), presets={})


class SchemaDiscovery:
    """The catalogue's descriptions, made once when first asked for (the schema is fixed by
    the code), and filtered for each caller. The descriptions handed out are shared: do not
    change them."""

    def __init__(self, schema: Schema) -> None:
        self._schema = schema
        # Paths name a collection as Directus clients do (`directus_users`) or as our
        # permission rows and routes do (`users`).
        self._named = {n: c for c in schema for n in (c.name, directus_name(c.name))}

    # Made on first use, not at start: thousands of small objects most services never need.
    @cached_property
    def _collections(self) -> dict[str, Description]:
        return {c.name: collection_description(c) for c in self._schema}

    @cached_property
    def _fields(self) -> dict[str, list[Description]]:
        return {c.name: field_descriptions(self._schema, c) for c in self._schema}

    @cached_property
    def _relations(self) -> dict[str, list[Description]]:
        return {c.name: relation_descriptions(self._schema, c) for c in self._schema}

    def collections(self, caller: Accountability) -> list[Description]:
        """Every collection the caller may read."""
        return [self._collections[c.name] for c in self._schema if _read(caller, c) is not None]

    def collection(self, caller: Accountability, name: str) -> Description:
        """One collection the caller may read."""
        return self._collections[self._readable(caller, name)[0].name]

    def fields(self, caller: Accountability, name: str | None = None) -> list[Description]:
        """The readable fields of every readable collection, or of the one named."""
        if name is not None:
            named, readable = self._readable(caller, name)
            return _allowed(self._fields[named.name], readable)
        return [
            field
            for collection in self._schema
            if (access := _read(caller, collection)) is not None
            for field in _allowed(self._fields[collection.name], access)
        ]

    def field(self, caller: Accountability, name: str, field: str) -> Description:
        """One readable field of a readable collection."""
        collection, access = self._readable(caller, name)
        found = next((f for f in self._fields[collection.name] if f["field"] == field), None)
        if found is None or not access.allows_field(field):
            raise Forbidden(no_field(field, name))
        return found

    def relations(
        self, caller: Accountability, name: str | None = None, field: str | None = None
    ) -> list[Description]:
        """The relations whose collections and fields the caller may read: all of them,
        those of one collection's many-to-one fields, or that of one field."""
        if name is None:
            collections: Iterable[Collection] = self._schema
        else:
            collections = (self._readable(caller, name)[0],)
        found = [
            relation
            for collection in collections
            for relation in self._relations[collection.name]
            if (field is None or relation["field"] == field) and self._may_follow(caller, relation)
        ]
        if name is not None and field is not None and not found:
            raise Forbidden(no_field(field, name))
        return found

    def _readable(self, caller: Accountability, name: str) -> tuple[Collection, CollectionAccess]:
        """The collection a path names and the caller's read access to it."""
        collection = self._named.get(name)
        access = _read(caller, collection) if collection is not None else None
        if collection is None or access is None:
            raise Forbidden(no_collection(name))
        return collection, access

    def _may_follow(self, caller: Accountability, relation: Description) -> bool:
        """Both ends readable: the many-to-one field and, where the related collection
        has one, its to-many field (as Directus filters relations)."""
        ends = (
            (relation["collection"], relation["field"]),
            (relation["related_collection"], relation["meta"]["one_field"]),
        )
        for name, field in ends:
            access = _read(caller, self._named[name])
            if access is None or (field is not None and not access.allows_field(field)):
                return False
        return True


def _read(caller: Accountability, collection: Collection) -> CollectionAccess | None:
    """The caller's read access to a collection; None when it has none."""
    return _EVERYTHING if caller.admin else caller.access(collection.name, "read")


def _allowed(fields: list[Description], access: CollectionAccess) -> list[Description]:
    return [f for f in fields if access.allows_field(f["field"])]
