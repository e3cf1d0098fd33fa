"""What a platform collection holds: its fields, their types and its relations.

One description serves everything that handles a collection: the read-model table, the
query language (which operators a field takes, which fields a path may cross), payload
checks and the masking of concealed values.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum


class FieldType(StrEnum):
    """The value types the query language and the tables know.

    How each is held in a read-model column (the same on SQLite and PostgreSQL):
    UUID, STRING, TEXT, HASH as text; INTEGER as a 64-bit integer; FLOAT as a double;
    BOOLEAN as the integer 0 or 1; DATETIME as text `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, so
    text order is time order; JSON as its JSON text.
    """

    UUID = "uuid"
    STRING = "string"
    TEXT = "text"
    INTEGER = "integer"
    FLOAT = "float"
    BOOLEAN = "boolean"
    DATETIME = "dateTime"
    #: A calendar date `YYYY-MM-DD`, held as that text (text order is date order).
    DATE = "date"
    JSON = "json"
    #: A one-way hash (passwords): only ever filtered on null or empty.
    HASH = "hash"


@dataclass(frozen=True)
class Field:
    """A stored field of a collection (a column of its table)."""

    name: str
    type: FieldType
    #: Read back as "**********" and filtered only with _null/_nnull/_empty/_nempty.
    concealed: bool = False
    #: Set by the service, never by a payload.
    readonly: bool = False
    #: Must be present (and not null) on create.
    required: bool = False
    unique: bool = False
    #: A many-to-one relation: the name of the collection this field's value points to.
    relation: str | None = None
    #: The values a payload may set, when the field is an enumeration.
    choices: tuple[str, ...] = ()
    #: The value a create fills in when the payload leaves the field out.
    default: object = None
    #: A JSON list of strings; `choices`, when given, limit its elements.
    array: bool = False
    #: Bounds of a number field, both inclusive.
    minimum: float | None = None
    maximum: float | None = None
    #: A number field that also takes its value as decimal text ("12.50").
    decimal_text: bool = False
    #: Looked up by value (a GS1 key that EPCIS names records by): it has an index.
    lookup: bool = False


@dataclass(frozen=True)
class Alias:
    """A to-many relation that has no column: rows of `collection` whose `foreign_key`
    field holds this item's primary key (O2M; M2M goes through a junction collection)."""

    name: str
    collection: str
    foreign_key: str
    #: A field the related rows must have set to count here (one junction can serve two
    #: aliases: a policy's `users` are its rows with a user, its `roles` those with a role).
    requires: str | None = None
    #: A payload may create, update and delete the related rows through this alias.
    writable: bool = False


@dataclass(frozen=True)
class Collection:
    """A collection as the API names it, with its primary key, fields and aliases."""

    name: str
    primary_key: str
    fields: tuple[Field, ...]
    aliases: tuple[Alias, ...] = ()
    #: The read-model table; defaults to the collection's name.
    table: str = ""
    #: Field the list is sorted by when the query names no sort; defaults to the key.
    sort_field: str = ""
    #: Rows that only link two items (many-to-many): they go when either item goes.
    junction: bool = False
    #: Kept by the service alone (the history): no request creates, changes or deletes.
    read_only: bool = False
    #: Written by the service in chunks, not as records (generated codes): requests may
    #: change items but neither create nor delete them.
    bulk: bool = False
    #: The fields `search` looks in; empty means every text field.
    search: tuple[str, ...] = ()
    _by_name: dict[str, Field] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.table:
            object.__setattr__(self, "table", self.name)
        if not self.sort_field:
            object.__setattr__(self, "sort_field", self.primary_key)
        self._by_name.update({f.name: f for f in self.fields})
        if self.primary_key not in self._by_name:
            raise ValueError(f"{self.name}: primary key {self.primary_key!r} is not a field")

    def field(self, name: str) -> Field | None:
        """The stored field with this name, or None."""
        return self._by_name.get(name)

    def alias(self, name: str) -> Alias | None:
        """The to-many relation with this name, or None."""
        return next((a for a in self.aliases if a.name == name), None)

    def defaults(self) -> dict[str, object]:
        """The values a new item gets for the fields its payload leaves out."""
        return {f.name: f.default for f in self.fields if f.default is not None}

    @property
    def key(self) -> Field:
        """The primary-key field."""
        return self._by_name[self.primary_key]


class Schema:
    """Every collection of the service, by name; relations are resolved through it."""

    def __init__(self, collections: tuple[Collection, ...]) -> None:
        self._collections = {c.name: c for c in collections}
        for collection in collections:
            for f in collection.fields:
                if f.relation is not None and f.relation not in self._collections:
                    raise ValueError(f"{collection.name}.{f.name}: unknown collection {f.relation}")
            for a in collection.aliases:
                target = self._collections.get(a.collection)
                if target is None or target.field(a.foreign_key) is None:
                    raise ValueError(
                        f"{collection.name}.{a.name}: unknown {a.collection}.{a.foreign_key}"
                    )

    def __getitem__(self, name: str) -> Collection:
        return self._collections[name]

    def get(self, name: str) -> Collection | None:
        """The collection with this name, or None."""
        return self._collections.get(name)

    def __iter__(self) -> Iterator[Collection]:
        return iter(self._collections.values())
