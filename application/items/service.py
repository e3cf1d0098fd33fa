"""Items of the platform collections: list, read, create, update and delete, with the
caller's permissions applied the way Directus applies them.

Every write becomes record events appended in one transaction; reads come from the
collections' tables, which the records projection keeps; a write answers once its
events are in those tables.

This module holds the use cases: each runs its synchronous part in a worker thread and
waits for the read models. The parts they are made of live beside it: `permissions`
(read scope, item rules, write access), `writer` (payloads into record changes),
`relations` (nested writes), `unit_of_work` and `rules` (the collections' hooks).
"""

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.items.history import record_as_of
from application.items.keys import primary_keys
from application.items.permissions import ItemPermissions, no_collection, no_field, variables
from application.items.rules import BulkItems, CollectionRules, Item
from application.items.unit_of_work import Guard, Origin, UnitOfWork
from application.items.writer import ItemWriter
from application.service.blocking import BlockingRunner
from application.service.errors import Forbidden, InvalidPayload, InvalidQuery
from application.service.read_model_follower import ReadModelFollower
from domain.access.policies import SYSTEM, Accountability
from domain.collections.deep import with_filters
from domain.collections.evaluation import matches
from domain.collections.item_query import ItemQuery
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Collection, Schema
from domain.collections.validation import validate
from domain.collections.variables import resolve_variables
from domain.records.history import masked
from infrastructure.event_store import EventStore
from projections.items.reader import ItemReader


@dataclass(frozen=True)
class ItemList:
    """A page of items and, when asked for, their counts."""

    items: list[Item]
    meta: dict[str, int] | None


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
        self._reader = reader
        self.schema = schema
        self._follower = follower
        self._blocking = blocking
        self._timeout = read_your_writes_timeout
        self._clock = clock
        self._permissions = ItemPermissions(schema, reader, clock)
        self._writer = ItemWriter(
            store,
            reader,
            schema,
            rules,
            self._permissions,
            guard=guard,
            clock=clock,
            # Both registries are read at each call: capabilities built after this
            # service register their rules and bulk storage in them.
            bulk=bulk if bulk is not None else {},
        )

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
        scope = self._permissions.read_scope(caller, spec)
        query = self._checked(query, spec, caller, scope.fields)
        with _query_errors():
            # `aggregate`/`groupBy` answer rows of groups in place of items.
            read = self._reader.aggregate if query.aggregating else self._reader.list
            items = read(
                spec.name,
                query,
                restrict=scope.root,
                keys=primary_keys(spec, keys) if keys is not None else None,
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
        """An item's stored fields as the service itself sees them (no permissions), or
        None: for use cases that read what they need of related items (a product's GTIN)."""
        if key is None or key == "":
            return None
        found = await self.find(collection, ItemQuery(limit=1), [key])
        return found[0] if found else None

    async def find(
        self, collection: str, query: ItemQuery, keys: list[Any] | None = None
    ) -> list[Item]:
        """The stored fields of the items a query matches, as the service sees them."""
        # Stored fields only: the keys of to-many relations would cost reads unused.
        stored = tuple(f.name for f in self._collection(collection).fields)
        found = await self.read_many(
            SYSTEM, collection, dataclasses.replace(query, fields=stored), keys
        )
        return found.items

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
        scope = self._permissions.read_scope(caller, spec)
        names = _own_fields(spec, query.fields, scope.fields)
        values = record_as_of(self._store, spec.name, str(primary_keys(spec, [key])[0]), moment)
        if values is None:
            raise Forbidden()
        values = {**values, spec.primary_key: primary_keys(spec, [key])[0]}
        # A rule is checked against the item as it was; one that needs related items
        # cannot hold on a lone record, so it denies.
        if scope.root is not None and not matches(scope.root, values, spec, schema=self.schema):
            raise Forbidden()
        shown = masked(spec, values)
        return {name: shown.get(name) for name in names}

    def _checked(
        self,
        query: ItemQuery,
        spec: Collection,
        caller: Accountability,
        fields: Mapping[str, frozenset[str]] | None,
    ) -> ItemQuery:
        with _query_errors():
            checked = validate(query, spec, self.schema, allowed_fields=fields)
            values = variables(caller, self._clock())
            if checked.filter is not None:
                checked = dataclasses.replace(
                    checked, filter=resolve_variables(checked.filter, values)
                )
            if checked.deep:
                resolved = with_filters(checked.deep, lambda node: resolve_variables(node, values))
                checked = dataclasses.replace(checked, deep=resolved)
        return checked

    async def allows(
        self, caller: Accountability, collection: str, action: str, key: Any = None
    ) -> bool:
        """Whether the caller may apply `action` to this item (False when it is not there),
        or with no key, to some items of the collection (a permission for it at all)."""
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
        if key is None:
            return True
        try:
            self._permissions.require_visible(
                caller, spec, access, action, primary_keys(spec, [key])
            )
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
        await self._writer.rules_of(spec.name).after_create(stored)
        keys = [item[spec.primary_key] for item in stored]
        return await self._read_back(caller, spec, keys, query)

    def _create(
        self, caller: Accountability, spec: Collection, payloads: Sequence[Any]
    ) -> tuple[list[Item], int]:
        rules = self._writer.rules_of(spec.name)
        access = self._permissions.write_access(caller, spec, "create")
        prepared = [
            self._writer.payload(caller, spec, rules, access, p, creating=True) for p in payloads
        ]

        def build(batch: UnitOfWork) -> list[Item]:
            stored = []
            for values, nested in prepared:
                key, values = self._writer.new_values(batch, spec, rules, values)
                self._writer.put(batch, spec, key, values)
                self._writer.claim(batch, spec, rules, key, values, None)
                self._writer.write_aliases(caller, batch, spec, key, nested)
                stored.append(values)
            return stored

        return self._writer.write(spec, Origin.of(caller), build)

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
        return await self._edit(
            caller, spec, [(key, data) for key in primary_keys(spec, keys)], query
        )

    async def update_each(
        self, caller: Accountability, collection: str, items: Sequence[Any], query: ItemQuery
    ) -> list[Item] | None:
        """Apply each item's own changes to the item its primary key names, all or none."""
        spec = self._collection(collection)
        edits = []
        for item in items:
            if not isinstance(item, Mapping) or item.get(spec.primary_key) is None:
                raise InvalidPayload("Item in update misses primary key")
            key = primary_keys(spec, [item[spec.primary_key]])[0]
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
        rules = self._writer.rules_of(spec.name)
        for key, values in applied:
            await rules.after_update(caller, [key], values)
        keys = list(dict.fromkeys(key for key, _ in edits))
        return await self._read_back(caller, spec, keys, query)

    def _update(
        self, caller: Accountability, spec: Collection, edits: Sequence[tuple[Any, Any]]
    ) -> tuple[list[tuple[Any, Item]], int]:
        rules = self._writer.rules_of(spec.name)
        access = self._permissions.write_access(caller, spec, "update")
        self._permissions.require_visible(caller, spec, access, "update", [key for key, _ in edits])
        prepared = []
        for key, data in edits:
            values, nested = self._writer.payload(caller, spec, rules, access, data, creating=False)
            rules.before_update([key], values)
            prepared.append((key, values, nested))

        def build(batch: UnitOfWork) -> list[tuple[Any, Item]]:
            for key, values, nested in prepared:
                self._writer.change(batch, spec, rules, key, values)
                self._writer.write_aliases(caller, batch, spec, key, nested)
            return [(key, values) for key, values, _ in prepared]

        return self._writer.write(spec, Origin.of(caller), build)

    async def set_values(self, collection: str, key: Any, values: Item, *, origin: Origin) -> None:
        """Store values the service itself decided (a TFA secret), read-only fields
        included, bypassing permissions; the caller has checked what it writes."""
        spec = self._collection(collection)
        position = await self._blocking.run(self._set_values, spec, key, values, origin)
        await self._follower.wait_for(position, self._timeout)

    def _set_values(self, spec: Collection, key: Any, values: Item, origin: Origin) -> int:
        rules = self._writer.rules_of(spec.name)
        prepared = rules.prepare(values, creating=False)
        _, position = self._writer.write(
            spec, origin, lambda batch: self._writer.change(batch, spec, rules, key, prepared)
        )
        return position

    async def delete(self, caller: Accountability, collection: str, keys: Sequence[Any]) -> None:
        """Delete every key, all or none."""
        spec = self._collection(collection)
        position = await self._blocking.run(self._delete, caller, spec, primary_keys(spec, keys))
        await self._follower.wait_for(position, self._timeout)

    def _delete(self, caller: Accountability, spec: Collection, keys: Sequence[Any]) -> int:
        rules = self._writer.rules_of(spec.name)
        access = self._permissions.write_access(caller, spec, "delete")
        self._permissions.require_visible(caller, spec, access, "delete", keys)

        def build(batch: UnitOfWork) -> None:
            for key in keys:
                self._writer.remove(batch, spec, rules, key)

        _, position = self._writer.write(spec, Origin.of(caller), build)
        return position

    async def _read_back(
        self, caller: Accountability, spec: Collection, keys: Sequence[Any], query: ItemQuery
    ) -> list[Item] | None:
        try:
            result = await self.read_many(caller, spec.name, _unpaged(query), keys)
        except Forbidden:
            return None
        order = {k: i for i, k in enumerate(keys)}
        return sorted(result.items, key=lambda item: order.get(item.get(spec.primary_key), 0))

    def _collection(self, name: str) -> Collection:
        spec = self.schema.get(name)
        if spec is None:
            raise Forbidden(no_collection(name))
        return spec


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
            raise Forbidden(no_field(forbidden[0], spec.name))
        names = [n for n in names if n in allowed]
    return list(dict.fromkeys(names))


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
