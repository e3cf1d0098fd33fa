"""Nested writes of a to-many relation, and which related items cannot outlive their parent."""

from typing import TYPE_CHECKING, Any

from application.items.keys import primary_keys
from application.items.permissions import scoped
from application.items.rules import Item
from application.items.unit_of_work import UnitOfWork
from application.service.errors import InvalidPayload
from domain.access.policies import Accountability, CollectionAccess
from domain.collections.schema import Alias, Collection
from domain.masterdata.tenancy import ACCOUNT_FIELD
from domain.records.record import Record

if TYPE_CHECKING:
    # The writer runs these writes and they use its parts: a cycle for the type only.
    from application.items.writer import ItemWriter


class OneToManyWrite:
    """A nested write of a to-many relation: `[...]` replaces the related items,
    `{create, update, delete}` changes them item by item (Directus's two forms)."""

    def __init__(
        self,
        writer: "ItemWriter",
        caller: Accountability,
        batch: UnitOfWork,
        alias: Alias,
        parent: tuple[Collection, Any],
    ) -> None:
        self._writer = writer
        self._caller = caller
        self._batch = batch
        self._alias = alias
        self._parent, self._key = parent
        self._target = writer.schema[alias.collection]

    def apply(self, name: str, value: Any) -> None:
        """Apply the nested write `value` of the alias `name`."""
        if isinstance(value, list):
            self._replace(value)
        elif isinstance(value, dict) and set(value) <= {"create", "update", "delete"}:
            for item in _list_of(value.get("create", []), f"{name}.create"):
                self._create(item)
            for item in _list_of(value.get("update", []), f"{name}.update"):
                self._update(item)
            for related in _list_of(value.get("delete", []), f"{name}.delete"):
                self._delete(related)
        else:
            raise InvalidPayload(f'"{name}" must be a list or an object of create, update, delete')

    def _replace(self, items: list[Any]) -> None:
        pk = self._target.primary_key
        existing = set(
            self._writer.reader.keys_where(self._target.name, self._alias.foreign_key, self._key)
        )
        kept: set[Any] = set()
        for item in items:
            if isinstance(item, dict) and item.get(pk) is not None:
                kept.add(self._update(item))
            elif isinstance(item, dict):
                self._create(item)
            else:
                kept.add(self._existing_key(item))
        for related in existing - kept:
            self._delete(related)

    def _create(self, item: Any) -> None:
        writer, target = self._writer, self._target
        if not isinstance(item, dict):
            raise InvalidPayload(f"Each new item of {target.name} must be an object")
        rules = writer.rules_of(target.name)
        access = writer.permissions.write_access(self._caller, target, "create")
        values, _ = writer.payload(
            self._caller,
            target,
            rules,
            access,
            {**item, self._alias.foreign_key: self._key},
            creating=True,
            parent=self._alias.foreign_key,
        )
        if scoped(target):
            # Rows written through an item belong to the item's account.
            parent = self._batch.load(Record.create_id(self._parent.name, str(self._key)))
            values[ACCOUNT_FIELD] = parent.values.get(ACCOUNT_FIELD)
        key, values = writer.new_values(self._batch, target, rules, values)
        writer.put(self._batch, target, key, values)

    def _update(self, item: Any) -> Any:
        target = self._target
        if not isinstance(item, dict) or item.get(target.primary_key) is None:
            raise InvalidPayload(f"Each updated item of {target.name} needs its primary key")
        key = self._existing_key(item[target.primary_key])
        changes = {k: v for k, v in item.items() if k != target.primary_key}
        if self._alias.foreign_key in changes:
            raise InvalidPayload(
                f'"{self._alias.foreign_key}" of a related {target.name} item cannot change here'
            )
        if changes:
            self._changed(key, changes)
        return key

    def _delete(self, related: Any) -> None:
        writer, target = self._writer, self._target
        key = self._existing_key(related)
        if owned(target, self._alias.foreign_key):
            self._visible(key, "delete")
            writer.remove(self._batch, target, writer.rules_of(target.name), key)
        else:
            # The related item stays; only its pointer to this item goes.
            self._changed(key, {self._alias.foreign_key: None})

    def _changed(self, key: Any, changes: Item) -> None:
        """Apply changes to one related item, under its collection's update permission."""
        writer, target = self._writer, self._target
        rules = writer.rules_of(target.name)
        access = self._visible(key, "update")
        values, _ = writer.payload(self._caller, target, rules, access, changes, creating=False)
        rules.before_update([key], values)
        writer.change(self._batch, target, rules, key, values)

    def _visible(self, key: Any, action: str) -> CollectionAccess | None:
        """The caller's permission for `action` on the related item; Forbidden unless it
        passes that permission's item rule."""
        permissions, target = self._writer.permissions, self._target
        access = permissions.write_access(self._caller, target, action)
        permissions.require_visible(self._caller, target, access, action, [key])
        return access

    def _existing_key(self, related: Any) -> Any:
        target = self._target
        keys = primary_keys(target, [related])
        related_keys = self._writer.reader.keys_where(
            target.name, self._alias.foreign_key, self._key
        )
        if keys[0] not in related_keys:
            raise InvalidPayload(
                f'"{related}" is not an item of {target.name} related to this item'
            )
        return keys[0]


def owned(collection: Collection, foreign_key: str) -> bool:
    """Whether an item cannot outlive what its foreign key points at: a junction row, or
    a required relation (a permission without its policy)."""
    field = collection.field(foreign_key)
    return collection.junction or (field is not None and field.required)


def _list_of(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidPayload(f'"{where}" must be a list')
    return value
