"""The parts of an item write: checked payloads become record changes in a unit of work."""

import random
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from application.items.permissions import (
    ItemPermissions,
    no_field,
    no_permission,
    own_account,
    resolved,
    scoped,
)
from application.items.relations import OneToManyWrite, owned
from application.items.rules import BulkItems, CollectionRules, Item, Related
from application.items.unit_of_work import Guard, Origin, UnitOfWork
from application.service.errors import (
    FailedValidation,
    Forbidden,
    InvalidForeignKey,
    InvalidPayload,
    RecordNotUnique,
    ServiceUnavailable,
)
from domain.access.policies import Accountability, CollectionAccess
from domain.collections.coercion import format_datetime
from domain.collections.evaluation import matches
from domain.collections.payload import PayloadError, check_payload, missing_required
from domain.collections.schema import Collection, FieldType, Schema
from domain.masterdata.tenancy import ACCOUNT_FIELD
from domain.records.key_sequence import KeySequence
from domain.records.record import Record, RecordDeleted
from domain.records.unique_value import UniqueValue, ValueTaken
from infrastructure.event_store import DuplicateAggregate, EventStore
from projections.items.reader import ItemReader

T = TypeVar("T")

#: Attempts at a write that lost a race (a taken integer key, a concurrent change).
WRITE_ATTEMPTS = 20

#: The audit fields a create and an update set: the item collections' names, and the
#: files' (Directus's own names there).
_CREATE_STAMPS = (("user_created", "date_created"), ("uploaded_by", "created_on"))
_UPDATE_STAMPS = (("user_updated", "date_updated"), ("modified_by", "modified_on"))


class ItemWriter:
    """Checks what a write stores and turns it into record changes: new keys, unique
    values, audit stamps, nested writes and the cascade of a delete. Synchronous; the
    items service runs it in a worker thread."""

    def __init__(
        self,
        store: EventStore,
        reader: ItemReader,
        schema: Schema,
        rules: Mapping[str, CollectionRules],
        permissions: ItemPermissions,
        *,
        guard: Guard,
        clock: Callable[[], datetime],
        bulk: Mapping[str, BulkItems],
    ) -> None:
        self._store = store
        self.reader = reader
        self.schema = schema
        self._rules = rules
        self.permissions = permissions
        self._guard = guard
        self._clock = clock
        self._bulk = bulk
        self._default_rules = CollectionRules()

    def rules_of(self, collection: str) -> CollectionRules:
        """The hooks of a collection (the base class's, which add nothing, by default)."""
        return self._rules.get(collection, self._default_rules)

    def write(
        self, spec: Collection, origin: Origin, build: Callable[[UnitOfWork], T]
    ) -> tuple[T, int]:
        """Build a batch and save it; when a concurrent write got there first (a key, a
        unique value, a newer version of a record), build it again from what is stored
        now. Returns what `build` returned and the log position of the save."""
        for attempt in range(WRITE_ATTEMPTS):
            batch = UnitOfWork(self._store, origin, self._now(), self._guard)
            result = build(batch)
            try:
                return result, batch.save()
            except DuplicateAggregate:
                # Writers that collided should not collide again at once.
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise ServiceUnavailable(f"The items of {spec.name} kept changing; try again.")

    def change(
        self, batch: UnitOfWork, spec: Collection, rules: CollectionRules, key: Any, values: Item
    ) -> None:
        """Update one record in the batch, with its unique values."""
        record: Record = (
            self._bulk[spec.name].record(batch.load, key)
            if spec.bulk
            else batch.load(Record.create_id(spec.name, str(key)))
        )
        if record.deleted:
            raise Forbidden(no_permission("update", spec.name))
        before = dict(record.values)
        values = rules.derive(values, before, self._related(batch))
        if any(before.get(name) != value for name, value in values.items()):
            values = {**values, **_stamps(spec, batch, _UPDATE_STAMPS)}
        try:
            record.update(values, batch.actor, batch.at, **batch.where)
        except RecordDeleted:
            raise Forbidden(no_permission("update", spec.name)) from None
        self.claim(batch, spec, rules, key, record.values, before)

    def payload(
        self,
        caller: Accountability,
        spec: Collection,
        rules: CollectionRules,
        access: CollectionAccess | None,
        payload: Any,
        *,
        creating: bool,
        parent: str | None = None,
    ) -> tuple[Item, dict[str, Any]]:
        """The checked values to store and the nested alias writes, after permissions,
        presets and validation rules. `parent` names the field of a nested item that
        points at the item written with it, which need not exist yet."""
        try:
            values = check_payload(spec, payload)
        except PayloadError as exc:
            raise InvalidPayload(str(exc)) from exc
        if access is not None:
            for name in values:
                if not access.allows_field(name) or (name == ACCOUNT_FIELD and scoped(spec)):
                    raise Forbidden(no_field(name, spec.name))
            presets = resolved(access.presets, caller, self._clock())
            try:
                values = check_payload(spec, {**presets, **values})
            except PayloadError as exc:
                raise InvalidPayload(f"A preset does not fit: {exc}") from exc
            self._validate(caller, spec, access, values)
        nested = {k: values.pop(k) for k in list(values) if spec.alias(k) is not None}
        missing = missing_required(spec, values) if creating else None
        if missing is not None:
            raise InvalidPayload(f'"{missing}" is required')
        values = rules.prepare(values, creating=creating)
        self._check_relations(caller, spec, {k: v for k, v in values.items() if k != parent})
        return values, nested

    def _validate(
        self, caller: Accountability, spec: Collection, access: CollectionAccess, values: Item
    ) -> None:
        failures = []
        for raw in access.validation:
            rule = self.permissions.filter(raw, spec, caller, "validation")
            # Only what the payload (with presets) holds is checked, unless a rule asks
            # with _submitted that a field be there: as Directus validates.
            if not matches(rule, values, spec, schema=self.schema, partial=True):
                failures.append(raw)
        if failures:
            fields = sorted({k for rule in failures for k in rule if not k.startswith("_")})
            raise FailedValidation(
                "Validation failed"
                + (f' for field "{fields[0]}"' if len(fields) == 1 else "")
                + ".",
                field=fields[0] if len(fields) == 1 else None,
                type="validation",
                rules=failures,
            )

    def _check_relations(self, caller: Accountability, spec: Collection, values: Item) -> None:
        """Every related key must name an item, of the caller's account where the related
        collection belongs to accounts: no link reaches into another account."""
        for field in spec.fields:
            value = values.get(field.name)
            if field.relation is None or value is None:
                continue
            related = self.schema[field.relation]
            restrict = None
            if scoped(related) and not caller.admin:
                restrict = self.permissions.filter(own_account(caller), related, caller)
            if self.reader.count(field.relation, keys=[value], restrict=restrict) != 1:
                raise InvalidForeignKey(spec.name, field.name, value)

    def new_values(
        self, batch: UnitOfWork, spec: Collection, rules: CollectionRules, values: Item
    ) -> tuple[Any, Item]:
        """The key and the whole stored values of a new item: derived values, defaults and
        the audit stamps added."""
        values = rules.derive(values, None, self._related(batch))
        key = self._new_key(batch, spec, values)
        stamps = _stamps(spec, batch, _CREATE_STAMPS)
        if scoped(spec) and values.get(ACCOUNT_FIELD) is None:
            stamps[ACCOUNT_FIELD] = batch.account
        return key, {**spec.defaults(), **values, spec.primary_key: key, **stamps}

    def _related(self, batch: UnitOfWork) -> Related:
        def values(collection: str, key: Any) -> Item | None:
            try:
                record: Record = batch.load(Record.create_id(collection, str(key)))
            except KeyError:
                return None
            return None if record.deleted else dict(record.values)

        return values

    def _new_key(self, batch: UnitOfWork, spec: Collection, values: Item) -> Any:
        """The key of a new item: the one given, a UUID, or the next integer."""
        given = values.get(spec.primary_key)
        if spec.key.type is not FieldType.INTEGER:
            return given if given is not None else str(uuid.uuid4())
        aggregate_id = KeySequence.create_id(spec.name)
        try:
            sequence: KeySequence = batch.load(aggregate_id)
        except KeyError:
            # Items created before the sequence existed keep their keys.
            sequence = KeySequence(spec.name, self.reader.max_key(spec.name))
            batch.add(sequence)
        if given is not None:
            sequence.cover(given)
            return given
        key = sequence.take()
        # Only items created before the sequence started can be in the way, deleted ones
        # included: a new item never continues another's history.
        while batch.stored(Record.create_id(spec.name, str(key))):
            key = sequence.take()
        return key

    def put(self, batch: UnitOfWork, spec: Collection, key: Any, values: Item) -> None:
        """Store a new item, or bring back a deleted one under its key."""
        aggregate_id = Record.create_id(spec.name, str(key))
        try:
            record: Record = batch.load(aggregate_id)
        except KeyError:
            batch.add(Record(spec.name, str(key), values, batch.actor, batch.at, **batch.where))
            return
        if not record.deleted:
            raise RecordNotUnique(spec.name, spec.primary_key, key)
        record.recreate(values, batch.actor, batch.at, **batch.where)

    def remove(self, batch: UnitOfWork, spec: Collection, rules: CollectionRules, key: Any) -> None:
        """Delete an item, release its unique values and cascade to what points at it."""
        try:
            record: Record = batch.load(Record.create_id(spec.name, str(key)))
        except KeyError:
            raise Forbidden(no_permission("delete", spec.name)) from None
        if record.deleted:
            return
        before = dict(record.values)
        record.delete(batch.actor, batch.at, **batch.where)
        self.claim(batch, spec, rules, key, {}, before)
        self._cascade(batch, spec, key)

    def _cascade(self, batch: UnitOfWork, spec: Collection, key: Any) -> None:
        """What points at a deleted item: junction rows go, other references are cleared."""
        for other in self.schema:
            # Generated codes keep naming their product, job or reservation: they are
            # what was printed, and history.
            if other.read_only or other.bulk:
                continue
            for field in other.fields:
                if field.relation != spec.name:
                    continue
                referring = self.reader.keys_where(other.name, field.name, key)
                for other_key in referring:
                    if other.name == spec.name and other_key == key:
                        continue
                    if owned(other, field.name):
                        self.remove(batch, other, self.rules_of(other.name), other_key)
                    else:
                        record: Record = batch.load(Record.create_id(other.name, str(other_key)))
                        if not record.deleted:
                            record.update({field.name: None}, batch.actor, batch.at, **batch.where)

    def claim(
        self,
        batch: UnitOfWork,
        spec: Collection,
        rules: CollectionRules,
        key: Any,
        values: Item,
        before: Item | None,
    ) -> None:
        """Take the unique values the record now has and release those it gave up."""
        for field in spec.fields:
            if not field.unique:
                continue
            old = (before or {}).get(field.name)
            new = values.get(field.name)
            old_form = rules.unique_value(field.name, old) if old is not None else None
            new_form = rules.unique_value(field.name, new) if new is not None else None
            if old_form == new_form:
                continue
            if old_form is not None:
                claim: UniqueValue = batch.load(
                    UniqueValue.create_id(spec.name, field.name, old_form)
                )
                if claim.holder == str(key):
                    claim.release()
            if new_form is not None:
                claim_id = UniqueValue.create_id(spec.name, field.name, new_form)
                try:
                    existing: UniqueValue = batch.load(claim_id)
                except KeyError:
                    batch.add(UniqueValue(spec.name, field.name, new_form, str(key)))
                    continue
                try:
                    existing.claim(str(key))
                except ValueTaken:
                    raise RecordNotUnique(spec.name, field.name, new) from None

    def write_aliases(
        self,
        caller: Accountability,
        batch: UnitOfWork,
        spec: Collection,
        key: Any,
        nested: Mapping[str, Any],
    ) -> None:
        """The nested writes of an item's to-many aliases."""
        for name, value in nested.items():
            alias = spec.alias(name)
            assert alias is not None  # writable aliases are declared aliases
            OneToManyWrite(self, caller, batch, alias, (spec, key)).apply(name, value)

    def _now(self) -> str:
        return format_datetime(self._clock())


def _stamps(spec: Collection, batch: UnitOfWork, names: tuple[tuple[str, str], ...]) -> Item:
    """Who and when, for collections with audit fields."""
    stamps: Item = {}
    for user, moment in names:
        if spec.field(moment) is not None:
            stamps.update({user: batch.actor, moment: batch.at})
    return stamps
