"""Items of the platform collections: list, read, create, update and delete, with the
caller's permissions applied the way Directus applies them.

Every write becomes record events appended in one transaction; reads come from the
collections' tables, which the records projection keeps; a write answers once its
events are in those tables.
"""

import contextlib
import dataclasses
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeVar

from application.blocking import BlockingRunner
from application.errors import (
    FailedValidation,
    Forbidden,
    InvalidPayload,
    InvalidQuery,
    RecordNotUnique,
    ServiceUnavailable,
)
from application.items.history import record_as_of
from application.read_model_follower import ReadModelFollower
from domain.access.policies import SYSTEM, Accountability, CollectionAccess
from domain.collections.coercion import format_datetime
from domain.collections.evaluation import matches
from domain.collections.filters import Filter, parse_filter
from domain.collections.item_query import ItemQuery
from domain.collections.payload import PayloadError, check_payload, missing_required
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, FieldType, Schema
from domain.collections.validation import validate
from domain.collections.variables import VariableContext, resolve_value, resolve_variables
from domain.masterdata.tenancy import ACCOUNT, ACCOUNT_FIELD
from domain.records.history import masked
from domain.records.key_sequence import KeySequence
from domain.records.record import Record, RecordDeleted
from domain.records.unique_value import UniqueValue, ValueTaken
from infrastructure.event_store import DuplicateAggregate, EventStore
from projections.items.queries import ItemReader

Item = dict[str, Any]
T = TypeVar("T")

#: Integer keys are 64-bit: a larger one names nothing that can exist.
_INT64 = range(-(2**63), 2**63).__contains__

#: Attempts at a write that lost a race (a taken integer key, a concurrent change).
WRITE_ATTEMPTS = 20


@dataclass(frozen=True)
class _ReadScope:
    """What a caller may read (all None for administrators): the root collection's item
    rule, the readable fields and the item rules of every readable collection."""

    root: Filter | None
    fields: Mapping[str, frozenset[str]] | None
    rules: Mapping[str, Filter] | None


class _RulesOnDemand(Mapping[str, Filter]):
    """The item rules of the readable collections, each worked out (parsed, checked,
    its variables resolved) when a query first reaches its collection: a read touches a
    few of the dozens of collections a caller may read."""

    def __init__(self, rule_of: Callable[[str], Filter | None], names: Iterable[str]) -> None:
        self._rule_of = rule_of
        self._names = tuple(names)
        self._known: dict[str, Filter | None] = {}

    def __getitem__(self, name: str) -> Filter:
        if name not in self._known:
            if name not in self._names:
                raise KeyError(name)
            self._known[name] = self._rule_of(name)
        rule = self._known[name]
        if rule is None:
            raise KeyError(name)
        return rule

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True)
class ItemList:
    """A page of items and, when asked for, their counts."""

    items: list[Item]
    meta: dict[str, int] | None


class CollectionRules:
    """What a collection adds to plain storage: derived values, cascades, guards.

    The base class adds nothing; system collections subclass it.
    """

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Values as they are stored: hash secrets, normalise, fill defaults."""
        return values

    def unique_value(self, field: str, value: Any) -> str:
        """The form in which a unique value is compared."""
        return str(value)

    def before_update(self, keys: Sequence[Any], changes: Item) -> None:
        """Refuse an update that would break the service (raise a PlatformError)."""

    def derive(self, values: Item, current: Item | None, related: "Related") -> Item:
        """Values the service works out from the others as they will be stored (a key
        from a GTIN); `current` is the stored item on update, None on create."""
        return values

    async def after_create(self, items: Sequence[Item]) -> None:
        """React to new items once they are stored (send a notification's mail)."""

    async def after_update(
        self, caller: Accountability, keys: Sequence[Any], changes: Item
    ) -> None:
        """React to changed items once they are stored (end sessions)."""


#: Looks at a batch's aggregates before they are saved; raises to refuse the batch.
Guard = Callable[[Iterable[Any]], None]
#: The current values of another item (collection, key) as the write sees them, or None.
Related = Callable[[str, Any], Item | None]


@dataclass(frozen=True)
class Origin:
    """Who makes a change, and from where: what every record event of it carries."""

    actor: str | None
    ip: str | None = None
    user_agent: str | None = None
    #: The account new items of tenant collections belong to.
    account: str | None = None

    @classmethod
    def of(cls, caller: Accountability) -> "Origin":
        """The origin of a caller's request."""
        return cls(caller.user, caller.ip, caller.user_agent, caller.account)


class _Batch:
    """The aggregates one request changes, saved together."""

    def __init__(self, store: EventStore, origin: Origin, at: str, guard: Guard) -> None:
        self.store = store
        self.actor = origin.actor
        self.account = origin.account
        #: The rest of the origin, as keywords of the record events.
        self.where = {"ip": origin.ip, "user_agent": origin.user_agent}
        self.at = at
        self.aggregates: dict[str, Any] = {}
        self._missing: set[str] = set()
        self._guard = guard

    def load(self, aggregate_id: str) -> Any:
        """The aggregate as this batch first saw it; KeyError if it did not exist then.

        Absence is remembered too: a batch works on one view of the store, and the store
        refuses it at save time if another write got there first.
        """
        if aggregate_id in self._missing:
            raise KeyError(aggregate_id)
        if aggregate_id not in self.aggregates:
            try:
                self.aggregates[aggregate_id] = self.store.get(aggregate_id)
            except KeyError:
                self._missing.add(aggregate_id)
                raise
        return self.aggregates[aggregate_id]

    def add(self, aggregate: Any) -> None:
        self._missing.discard(aggregate.id)
        self.aggregates[aggregate.id] = aggregate

    def save(self) -> int:
        self._guard(self.aggregates.values())
        return self.store.save(*self.aggregates.values())


class BulkItems(Protocol):
    """Where the items of a bulk collection live (see `Collection.bulk`)."""

    def record(self, load: Callable[[str], Any], key: Any) -> Any:
        """The item `key` as a record: `values`, `deleted` and `update(changes, actor,
        at, ip=, user_agent=)`, over aggregates that `load` gets from the batch."""


class ItemsService:
    """The use cases behind `/users`, `/roles`, `/policies`... and `/items/<collection>`."""

    def __init__(
        self,
        store: EventStore,
        reader: ItemReader,
        schema: Schema,
        rules: Mapping[str, CollectionRules],
        follower: ReadModelFollower,
        blocking: BlockingRunner,
        *,
        read_your_writes_timeout: float,
        guard: Guard = lambda aggregates: None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        bulk: Mapping[str, BulkItems] | None = None,
    ) -> None:
        self._store = store
        # Read at each call: capabilities built after this service register theirs.
        self._bulk = bulk if bulk is not None else {}
        self._guard = guard
        self._reader = reader
        self.schema = schema
        self._rules = rules  # likewise read at each call
        self._follower = follower
        self._blocking = blocking
        self._timeout = read_your_writes_timeout
        self._clock = clock
        self._default_rules = CollectionRules()

    # -- reading ---------------------------------------------------------------------

    async def read_many(
        self,
        caller: Accountability,
        collection: str,
        query: ItemQuery,
        keys: Sequence[Any] | None = None,
    ) -> ItemList:
        """The items the caller may read that match the query, with the counts asked for."""
        return await self._blocking.run(self._read_many, caller, collection, query, keys)

    def _read_many(
        self,
        caller: Accountability,
        collection: str,
        query: ItemQuery,
        keys: Sequence[Any] | None,
    ) -> ItemList:
        spec = self._collection(collection)
        scope = self._read_scope(caller, spec)
        query = self._checked(query, spec, caller, scope.fields)
        with _query_errors():
            # `aggregate`/`groupBy` answer rows of groups in place of items.
            read = self._reader.aggregate if query.aggregating else self._reader.list
            items = read(
                spec.name,
                query,
                restrict=scope.root,
                keys=_keys(spec, keys) if keys is not None else None,
                allowed_fields=scope.fields,
                restrict_related=scope.rules,
            )
            meta: dict[str, int] | None = None
            if query.meta:
                meta = {}
                if "total_count" in query.meta:
                    meta["total_count"] = self._reader.count(
                        spec.name, restrict=scope.root, restrict_related=scope.rules
                    )
                if "filter_count" in query.meta:
                    meta["filter_count"] = self._reader.count(
                        spec.name,
                        filter=query.filter,
                        search=query.search,
                        restrict=scope.root,
                        allowed_fields=scope.fields,
                        restrict_related=scope.rules,
                    )
        return ItemList(items, meta)

    async def lookup(self, collection: str, key: Any) -> Item | None:
        """An item as the service itself sees it (no permissions), or None: for use
        cases that read what they need of related items (a product's GTIN)."""
        if key is None or key == "":
            return None
        found = await self.read_many(SYSTEM, collection, ItemQuery(limit=1), [key])
        return found.items[0] if found.items else None

    async def read_one(
        self, caller: Accountability, collection: str, key: Any, query: ItemQuery
    ) -> Item:
        """One item; Forbidden when it does not exist or the caller may not read it."""
        result = await self.read_many(caller, collection, _single(query), [key])
        if not result.items:
            raise Forbidden()
        return result.items[0]

    async def read_as_of(
        self, caller: Accountability, collection: str, key: Any, moment: datetime, query: ItemQuery
    ) -> Item:
        """One item as it was at `moment`, rebuilt from its events; Forbidden when it did
        not exist then or the caller may not read it. Only its own fields are answered."""
        return await self._blocking.run(self._read_as_of, caller, collection, key, moment, query)

    def _read_as_of(
        self, caller: Accountability, collection: str, key: Any, moment: datetime, query: ItemQuery
    ) -> Item:
        spec = self._collection(collection)
        if spec.read_only:
            raise InvalidQuery(f'"as_of" does not apply to {spec.name}: its items never change')
        scope = self._read_scope(caller, spec)
        names = _own_fields(spec, query.fields, scope.fields)
        values = record_as_of(self._store, spec.name, str(_keys(spec, [key])[0]), moment)
        if values is None:
            raise Forbidden()
        values = {**values, spec.primary_key: _keys(spec, [key])[0]}
        # A rule is checked against the item as it was; one that needs related items
        # cannot hold on a lone record, so it denies.
        if scope.root is not None and not matches(scope.root, values, spec, schema=self.schema):
            raise Forbidden()
        shown = masked(spec, values)
        return {name: shown.get(name) for name in names}

    def _read_scope(self, caller: Accountability, spec: Collection) -> _ReadScope:
        """What the caller may read: per readable collection its fields and item rule."""
        if caller.admin:
            return _ReadScope(None, None, None)
        if caller.access(spec.name, "read") is None:
            raise Forbidden(_no_collection(spec.name))
        fields: dict[str, frozenset[str]] = {}
        readable: dict[str, CollectionAccess] = {}
        for other in self.schema:
            access = caller.access(other.name, "read")
            if access is not None:
                fields[other.name] = frozenset(access.fields)
                readable[other.name] = access

        def rule_of(name: str) -> Filter | None:
            return self._rule(readable[name], self.schema[name], caller)

        rules = _RulesOnDemand(rule_of, readable)
        return _ReadScope(rules.get(spec.name), fields, rules)

    def _rule(
        self, access: CollectionAccess, spec: Collection, caller: Accountability
    ) -> Filter | None:
        """The item rule of a permission, confined to the caller's account where the
        collection belongs to accounts."""
        rules = [access.rule] if access.rule is not None else []
        if _scoped(spec):
            rules.append(_own_account(caller))
        if not rules:
            return None
        return self._filter(rules[0] if len(rules) == 1 else {"_and": rules}, spec, caller)

    def _filter(
        self,
        raw: Any,
        spec: Collection,
        caller: Accountability,
        purpose: Literal["permission", "validation"] = "permission",
    ) -> Filter:
        # Rules are written by administrators; one that no longer fits the schema denies
        # rather than errs, so a stale rule never widens access.
        try:
            parsed = validate(parse_filter(raw), spec, self.schema, purpose=purpose)
            return resolve_variables(parsed, _variables(caller, self._clock()))
        except (QueryError, FieldForbidden) as exc:
            raise Forbidden(f"A permission rule of {spec.name} cannot be applied: {exc}") from exc

    def _checked(
        self,
        query: ItemQuery,
        spec: Collection,
        caller: Accountability,
        fields: Mapping[str, frozenset[str]] | None,
    ) -> ItemQuery:
        with _query_errors():
            checked = validate(query, spec, self.schema, allowed_fields=fields)
            if checked.filter is not None:
                resolved = resolve_variables(checked.filter, _variables(caller, self._clock()))
                checked = dataclasses.replace(checked, filter=resolved)
        return checked

    async def allows(self, caller: Accountability, collection: str, action: str, key: Any) -> bool:
        """Whether the caller may apply `action` to this item (False when it is not there)."""
        return await self._blocking.run(self._allows, caller, collection, action, key)

    def _allows(self, caller: Accountability, collection: str, action: str, key: Any) -> bool:
        spec = self.schema.get(collection)
        if spec is None:
            return False
        if caller.admin:
            return True
        access = caller.access(spec.name, action)
        if access is None:
            return False
        try:
            self._require_visible(caller, spec, access, action, _keys(spec, [key]))
        except Forbidden:
            return False
        return True

    # -- writing ---------------------------------------------------------------------

    async def create(
        self, caller: Accountability, collection: str, payloads: Sequence[Any], query: ItemQuery
    ) -> list[Item] | None:
        """Create items in one transaction; the created items as the caller may read them,
        or None when the caller may not read them back."""
        spec = self._collection(collection)
        stored, position = await self._blocking.run(self._create, caller, spec, payloads)
        await self._follower.wait_for(position, self._timeout)
        await self._rules.get(spec.name, self._default_rules).after_create(stored)
        keys = [item[spec.primary_key] for item in stored]
        return await self._read_back(caller, spec, keys, query)

    def _create(
        self, caller: Accountability, spec: Collection, payloads: Sequence[Any]
    ) -> tuple[list[Item], int]:
        rules = self._rules.get(spec.name, self._default_rules)
        access = self._write_access(caller, spec, "create")
        prepared = [self._payload(caller, spec, rules, access, p, creating=True) for p in payloads]

        def build(batch: _Batch) -> list[Item]:
            stored = []
            for values, nested in prepared:
                key, values = self._new_values(batch, spec, rules, values)
                self._put(batch, spec, key, values)
                self._claim(batch, spec, rules, key, values, None)
                self._write_aliases(caller, batch, spec, key, nested)
                stored.append(values)
            return stored

        return self._write(spec, Origin.of(caller), build)

    async def update(
        self,
        caller: Accountability,
        collection: str,
        keys: Sequence[Any],
        data: Any,
        query: ItemQuery,
    ) -> list[Item] | None:
        """Apply the same changes to every key, all or none; the updated items as the
        caller may read them, or None."""
        spec = self._collection(collection)
        return await self._edit(caller, spec, [(key, data) for key in _keys(spec, keys)], query)

    async def update_each(
        self, caller: Accountability, collection: str, items: Sequence[Any], query: ItemQuery
    ) -> list[Item] | None:
        """Apply each item's own changes to the item its primary key names, all or none."""
        spec = self._collection(collection)
        edits = []
        for item in items:
            if not isinstance(item, Mapping) or item.get(spec.primary_key) is None:
                raise InvalidPayload("Item in update misses primary key")
            key = _keys(spec, [item[spec.primary_key]])[0]
            edits.append((key, {k: v for k, v in item.items() if k != spec.primary_key}))
        return await self._edit(caller, spec, edits, query)

    async def keys_matching(
        self, caller: Accountability, collection: str, query: ItemQuery
    ) -> list[Any]:
        """The keys of the items the caller can read that match the query's filter and
        search (the `{"query": ...}` form of batch updates and deletes)."""
        spec = self._collection(collection)
        everything = dataclasses.replace(
            query,
            fields=(spec.primary_key,),
            sort=(),
            limit=None,
            offset=0,
            meta=frozenset(),
            aggregate=(),
            group_by=(),
        )
        result = await self.read_many(caller, collection, everything)
        return [item[spec.primary_key] for item in result.items]

    async def _edit(
        self,
        caller: Accountability,
        spec: Collection,
        edits: Sequence[tuple[Any, Any]],
        query: ItemQuery,
    ) -> list[Item] | None:
        applied, position = await self._blocking.run(self._update, caller, spec, edits)
        await self._follower.wait_for(position, self._timeout)
        rules = self._rules.get(spec.name, self._default_rules)
        for key, values in applied:
            await rules.after_update(caller, [key], values)
        keys = list(dict.fromkeys(key for key, _ in edits))
        return await self._read_back(caller, spec, keys, query)

    def _update(
        self, caller: Accountability, spec: Collection, edits: Sequence[tuple[Any, Any]]
    ) -> tuple[list[tuple[Any, Item]], int]:
        rules = self._rules.get(spec.name, self._default_rules)
        access = self._write_access(caller, spec, "update")
        self._require_visible(caller, spec, access, "update", [key for key, _ in edits])
        prepared = []
        for key, data in edits:
            values, nested = self._payload(caller, spec, rules, access, data, creating=False)
            rules.before_update([key], values)
            prepared.append((key, values, nested))

        def build(batch: _Batch) -> list[tuple[Any, Item]]:
            for key, values, nested in prepared:
                self._change(batch, spec, rules, key, values)
                self._write_aliases(caller, batch, spec, key, nested)
            return [(key, values) for key, values, _ in prepared]

        return self._write(spec, Origin.of(caller), build)

    async def set_values(self, collection: str, key: Any, values: Item, *, origin: Origin) -> None:
        """Store values the service itself decided (a TFA secret), read-only fields
        included, bypassing permissions; the caller has checked what it writes."""
        spec = self._collection(collection)
        position = await self._blocking.run(self._set_values, spec, key, values, origin)
        await self._follower.wait_for(position, self._timeout)

    def _set_values(self, spec: Collection, key: Any, values: Item, origin: Origin) -> int:
        rules = self._rules.get(spec.name, self._default_rules)
        prepared = rules.prepare(values, creating=False)
        _, position = self._write(
            spec, origin, lambda batch: self._change(batch, spec, rules, key, prepared)
        )
        return position

    async def delete(self, caller: Accountability, collection: str, keys: Sequence[Any]) -> None:
        """Delete every key, all or none."""
        spec = self._collection(collection)
        position = await self._blocking.run(self._delete, caller, spec, _keys(spec, keys))
        await self._follower.wait_for(position, self._timeout)

    def _delete(self, caller: Accountability, spec: Collection, keys: Sequence[Any]) -> int:
        rules = self._rules.get(spec.name, self._default_rules)
        access = self._write_access(caller, spec, "delete")
        self._require_visible(caller, spec, access, "delete", keys)

        def build(batch: _Batch) -> None:
            for key in keys:
                self._remove(batch, spec, rules, key)

        _, position = self._write(spec, Origin.of(caller), build)
        return position

    # -- the parts of a write --------------------------------------------------------

    def _write(
        self, spec: Collection, origin: Origin, build: Callable[[_Batch], T]
    ) -> tuple[T, int]:
        """Build a batch and save it; when a concurrent write got there first (a key, a
        unique value, a newer version of a record), build it again from what is stored
        now. Returns what `build` returned and the log position of the save."""
        for attempt in range(WRITE_ATTEMPTS):
            batch = self._batch(origin)
            result = build(batch)
            try:
                return result, batch.save()
            except DuplicateAggregate:
                # Writers that collided should not collide again at once.
                time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise ServiceUnavailable(f"The items of {spec.name} kept changing; try again.")

    def _change(
        self, batch: _Batch, spec: Collection, rules: CollectionRules, key: Any, values: Item
    ) -> None:
        """Update one record in the batch, with its unique values."""
        record: Record = (
            self._bulk[spec.name].record(batch.load, key)
            if spec.bulk
            else batch.load(Record.create_id(spec.name, str(key)))
        )
        if record.deleted:
            raise Forbidden(_no_permission("update", spec.name))
        before = dict(record.values)
        values = rules.derive(values, before, self._related(batch))
        if any(before.get(name) != value for name, value in values.items()):
            values = {**values, **_stamps(spec, batch, _UPDATE_STAMPS)}
        try:
            record.update(values, batch.actor, batch.at, **batch.where)
        except RecordDeleted:
            raise Forbidden(_no_permission("update", spec.name)) from None
        self._claim(batch, spec, rules, key, record.values, before)

    def _write_access(
        self, caller: Accountability, spec: Collection, action: str
    ) -> CollectionAccess | None:
        if spec.read_only:
            raise Forbidden(_no_permission(action, spec.name))
        if spec.bulk and action != "update":
            raise Forbidden(
                f'Items of "{spec.name}" are made by the service; they can be changed but'
                f" not {action}d by a request."
            )
        if caller.admin:
            return None
        access = caller.access(spec.name, action)
        if access is None:
            raise Forbidden(_no_permission(action, spec.name))
        return access

    def _require_visible(
        self,
        caller: Accountability,
        spec: Collection,
        access: CollectionAccess | None,
        action: str,
        keys: Sequence[Any],
    ) -> None:
        """Every key must exist and pass the action's item rule, or nothing happens."""
        restrict = self._rule(access, spec, caller) if access is not None else None
        found = self._reader.count(spec.name, restrict=restrict, keys=keys)
        if found != len(set(keys)):
            raise Forbidden(_no_permission(action, spec.name))

    def _payload(
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
                if not access.allows_field(name) or (name == ACCOUNT_FIELD and _scoped(spec)):
                    raise Forbidden(_no_field(name, spec.name))
            presets = _resolved(access.presets, caller, self._clock())
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
            rule = self._filter(raw, spec, caller, "validation")
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
            if _scoped(related) and not caller.admin:
                restrict = self._filter(_own_account(caller), related, caller)
            if self._reader.count(field.relation, keys=[value], restrict=restrict) != 1:
                raise InvalidPayload(
                    f'Invalid foreign key "{value}" for field "{field.name}"'
                    f' in collection "{spec.name}"'
                )

    def _new_values(
        self, batch: _Batch, spec: Collection, rules: CollectionRules, values: Item
    ) -> tuple[Any, Item]:
        """The key and the whole stored values of a new item: derived values, defaults and
        the audit stamps added."""
        values = rules.derive(values, None, self._related(batch))
        key = self._new_key(batch, spec, values)
        stamps = _stamps(spec, batch, _CREATE_STAMPS)
        if _scoped(spec) and values.get(ACCOUNT_FIELD) is None:
            stamps[ACCOUNT_FIELD] = batch.account
        return key, {**spec.defaults(), **values, spec.primary_key: key, **stamps}

    def _related(self, batch: _Batch) -> Related:
        def values(collection: str, key: Any) -> Item | None:
            try:
                record: Record = batch.load(Record.create_id(collection, str(key)))
            except KeyError:
                return None
            return None if record.deleted else dict(record.values)

        return values

    def _new_key(self, batch: _Batch, spec: Collection, values: Item) -> Any:
        """The key of a new item: the one given, a UUID, or the next integer."""
        given = values.get(spec.primary_key)
        if spec.key.type is not FieldType.INTEGER:
            return given if given is not None else str(uuid.uuid4())
        aggregate_id = KeySequence.create_id(spec.name)
        try:
            sequence: KeySequence = batch.load(aggregate_id)
        except KeyError:
            # Items created before the sequence existed keep their keys.
            sequence = KeySequence(spec.name, self._reader.max_key(spec.name))
            batch.add(sequence)
        if given is not None:
            sequence.cover(given)
            return given
        key = sequence.take()
        # Only items created before the sequence started can be in the way, deleted ones
        # included: a new item never continues another's history.
        while _stored(batch, Record.create_id(spec.name, str(key))):
            key = sequence.take()
        return key

    def _put(self, batch: _Batch, spec: Collection, key: Any, values: Item) -> None:
        aggregate_id = Record.create_id(spec.name, str(key))
        try:
            record: Record = batch.load(aggregate_id)
        except KeyError:
            batch.add(Record(spec.name, str(key), values, batch.actor, batch.at, **batch.where))
            return
        if not record.deleted:
            raise RecordNotUnique(spec.name, spec.primary_key, key)
        record.recreate(values, batch.actor, batch.at, **batch.where)

    def _remove(self, batch: _Batch, spec: Collection, rules: CollectionRules, key: Any) -> None:
        try:
            record: Record = batch.load(Record.create_id(spec.name, str(key)))
        except KeyError:
            raise Forbidden(_no_permission("delete", spec.name)) from None
        if record.deleted:
            return
        before = dict(record.values)
        record.delete(batch.actor, batch.at, **batch.where)
        self._claim(batch, spec, rules, key, {}, before)
        self._cascade(batch, spec, key)

    def _cascade(self, batch: _Batch, spec: Collection, key: Any) -> None:
        """What points at a deleted item: junction rows go, other references are cleared."""
        for other in self.schema:
            # Generated codes keep naming their product, job or reservation: they are
            # what was printed, and history.
            if other.read_only or other.bulk:
                continue
            for field in other.fields:
                if field.relation != spec.name:
                    continue
                referring = self._reader.keys_where(other.name, field.name, key)
                for other_key in referring:
                    if other.name == spec.name and other_key == key:
                        continue
                    if _owned(other, field.name):
                        rules = self._rules.get(other.name, self._default_rules)
                        self._remove(batch, other, rules, other_key)
                    else:
                        record: Record = batch.load(Record.create_id(other.name, str(other_key)))
                        if not record.deleted:
                            record.update({field.name: None}, batch.actor, batch.at, **batch.where)

    def _claim(
        self,
        batch: _Batch,
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

    def _write_aliases(
        self,
        caller: Accountability,
        batch: _Batch,
        spec: Collection,
        key: Any,
        nested: Mapping[str, Any],
    ) -> None:
        for name, value in nested.items():
            alias = spec.alias(name)
            assert alias is not None  # writable aliases are declared aliases
            _O2MWrite(self, caller, batch, alias, (spec, key)).apply(name, value)

    async def _read_back(
        self, caller: Accountability, spec: Collection, keys: Sequence[Any], query: ItemQuery
    ) -> list[Item] | None:
        try:
            result = await self.read_many(caller, spec.name, _unpaged(query), keys)
        except Forbidden:
            return None
        order = {k: i for i, k in enumerate(keys)}
        return sorted(result.items, key=lambda item: order.get(item.get(spec.primary_key), 0))

    def _batch(self, origin: Origin) -> _Batch:
        return _Batch(self._store, origin, self._now(), self._guard)

    def _collection(self, name: str) -> Collection:
        spec = self.schema.get(name)
        if spec is None:
            raise Forbidden(_no_collection(name))
        return spec

    def _now(self) -> str:
        return format_datetime(self._clock())


class _O2MWrite:
    """A nested write of a to-many relation: `[...]` replaces the related items,
    `{create, update, delete}` changes them item by item (Directus's two forms)."""

    def __init__(
        self,
        service: ItemsService,
        caller: Accountability,
        batch: _Batch,
        alias: Alias,
        parent: tuple[Collection, Any],
    ) -> None:
        self._service = service
        self._caller = caller
        self._batch = batch
        self._alias = alias
        self._parent, self._key = parent
        self._target = service.schema[alias.collection]

    def apply(self, name: str, value: Any) -> None:
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
            self._service._reader.keys_where(self._target.name, self._alias.foreign_key, self._key)
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
        service, target = self._service, self._target
        if not isinstance(item, dict):
            raise InvalidPayload(f"Each new item of {target.name} must be an object")
        rules = service._rules.get(target.name, service._default_rules)
        access = service._write_access(self._caller, target, "create")
        values, _ = service._payload(
            self._caller,
            target,
            rules,
            access,
            {**item, self._alias.foreign_key: self._key},
            creating=True,
            parent=self._alias.foreign_key,
        )
        if _scoped(target):
            # Rows written through an item belong to the item's account.
            parent = self._batch.load(Record.create_id(self._parent.name, str(self._key)))
            values[ACCOUNT_FIELD] = parent.values.get(ACCOUNT_FIELD)
        key, values = service._new_values(self._batch, target, rules, values)
        service._put(self._batch, target, key, values)

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
        service, target = self._service, self._target
        key = self._existing_key(related)
        if _owned(target, self._alias.foreign_key):
            self._visible(key, "delete")
            rules = service._rules.get(target.name, service._default_rules)
            service._remove(self._batch, target, rules, key)
        else:
            # The related item stays; only its pointer to this item goes.
            self._changed(key, {self._alias.foreign_key: None})

    def _changed(self, key: Any, changes: Item) -> None:
        """Apply changes to one related item, under its collection's update permission."""
        service, target = self._service, self._target
        rules = service._rules.get(target.name, service._default_rules)
        access = self._visible(key, "update")
        values, _ = service._payload(self._caller, target, rules, access, changes, creating=False)
        rules.before_update([key], values)
        service._change(self._batch, target, rules, key, values)

    def _visible(self, key: Any, action: str) -> CollectionAccess | None:
        """The caller's permission for `action` on the related item; Forbidden unless it
        passes that permission's item rule."""
        service, target = self._service, self._target
        access = service._write_access(self._caller, target, action)
        service._require_visible(self._caller, target, access, action, [key])
        return access

    def _existing_key(self, related: Any) -> Any:
        target = self._target
        keys = _keys(target, [related])
        owned = self._service._reader.keys_where(target.name, self._alias.foreign_key, self._key)
        if keys[0] not in owned:
            raise InvalidPayload(
                f'"{related}" is not an item of {target.name} related to this item'
            )
        return keys[0]


def _own_fields(
    spec: Collection, requested: Sequence[str], readable: Mapping[str, frozenset[str]] | None
) -> list[str]:
    """The stored fields a query names (`*` for all) that the caller may read; a path
    into a relation is refused, as a past item is read on its own."""
    allowed = None if readable is None else readable.get(spec.name, frozenset())
    names: list[str] = []
    for name in requested:
        if name == "*":
            names.extend(f.name for f in spec.fields)
        elif spec.field(name) is None:
            raise InvalidQuery(f'"{name}": a past item is read with its own fields only')
        else:
            names.append(name)
    if allowed is not None and "*" not in allowed:
        forbidden = [n for n in names if n not in allowed]
        if any(n != "*" for n in requested if n in forbidden):
            raise Forbidden(_no_field(forbidden[0], spec.name))
        names = [n for n in names if n in allowed]
    return list(dict.fromkeys(names))


def _scoped(spec: Collection) -> bool:
    """Whether the collection's items belong to accounts (a multi-tenant installation)."""
    field = spec.field(ACCOUNT_FIELD)
    return field is not None and field.relation == ACCOUNT.name


def _own_account(caller: Accountability) -> dict[str, Any]:
    """The rule that keeps a caller to their account's items; none for a caller without
    an account."""
    if caller.account is None:
        return {"_and": [{ACCOUNT_FIELD: {"_null": True}}, {ACCOUNT_FIELD: {"_nnull": True}}]}
    return {ACCOUNT_FIELD: {"_eq": caller.account}}


#: The audit fields a create and an update set: the item collections' names, and the
#: files' (Directus's own names there).
_CREATE_STAMPS = (("user_created", "date_created"), ("uploaded_by", "created_on"))
_UPDATE_STAMPS = (("user_updated", "date_updated"), ("modified_by", "modified_on"))


def _stamps(spec: Collection, batch: _Batch, names: tuple[tuple[str, str], ...]) -> Item:
    """Who and when, for collections with audit fields."""
    stamps: Item = {}
    for user, moment in names:
        if spec.field(moment) is not None:
            stamps.update({user: batch.actor, moment: batch.at})
    return stamps


def _stored(batch: _Batch, aggregate_id: str) -> bool:
    try:
        batch.load(aggregate_id)
    except KeyError:
        return False
    return True


def _owned(collection: Collection, foreign_key: str) -> bool:
    """Whether an item cannot outlive what its foreign key points at: a junction row, or
    a required relation (a permission without its policy)."""
    field = collection.field(foreign_key)
    return collection.junction or (field is not None and field.required)


def _list_of(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidPayload(f'"{where}" must be a list')
    return value


def _keys(spec: Collection, keys: Sequence[Any]) -> list[Any]:
    """Primary keys in the key field's type; a malformed one is Forbidden, as Directus
    answers for keys that cannot exist."""
    result = []
    for key in keys:
        if spec.key.type is FieldType.INTEGER:
            try:
                value: Any = int(key)
            except (TypeError, ValueError):
                raise Forbidden() from None
            if isinstance(key, bool) or str(value) != str(key).strip() or not _INT64(value):
                raise Forbidden()
        elif spec.key.type is FieldType.UUID:
            try:
                value = str(uuid.UUID(str(key)))
            except ValueError:
                raise Forbidden() from None
        else:
            if not isinstance(key, str | int) or isinstance(key, bool):
                raise Forbidden()
            value = str(key)
        result.append(value)
    return result


def _variables(caller: Accountability, now: datetime) -> VariableContext:
    return VariableContext(
        user_id=caller.user,
        role_id=caller.role,
        roles=caller.roles,
        policies=caller.policy_ids,
        now=now,
    )


def _resolved(presets: Item, caller: Accountability, now: datetime) -> Item:
    context = _variables(caller, now)
    resolved = {}
    for name, value in presets.items():
        try:
            resolved[name] = resolve_value(value, context)
        except QueryError:
            # Text that merely starts with "$" ("$5 off") is a value, not a variable.
            resolved[name] = value
    return resolved


def _single(query: ItemQuery) -> ItemQuery:
    return dataclasses.replace(
        query, filter=None, search=None, sort=(), limit=1, offset=0, meta=frozenset()
    )


def _unpaged(query: ItemQuery) -> ItemQuery:
    return dataclasses.replace(
        query, filter=None, search=None, sort=(), limit=None, offset=0, meta=frozenset()
    )


@contextlib.contextmanager
def _query_errors() -> Iterator[None]:
    """Query-language failures as the platform API reports them."""
    try:
        yield
    except QueryError as exc:
        raise InvalidQuery(str(exc)) from exc
    except FieldForbidden as exc:
        raise Forbidden(str(exc)) from exc


def _no_collection(name: str) -> str:
    return f'You don\'t have permission to access collection "{name}" or it does not exist.'


def _no_permission(action: str, name: str) -> str:
    return (
        f'You don\'t have permission to perform "{action}" for collection "{name}"'
        " or it does not exist."
    )


def _no_field(field: str, name: str) -> str:
    return (
        f'You don\'t have permission to access field "{field}" in collection "{name}"'
        " or it does not exist."
    )
