"""Named queries: store a SimpleEventQuery under a name and run it later."""

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from application.blocking import BlockingRunner
from application.epcis_access import EventScope
from application.errors import AlreadyExists, Forbidden, InvalidRequest, NotFound
from application.event_queries import EventPage, EventQueryService
from application.read_model_follower import ReadModelFollower
from domain.access.policies import Accountability
from domain.epcis.event_query import QueryParameterError, parse_event_query
from domain.epcis.named_query import NamedQuery, QueryParameters
from domain.epcis.timestamps import format_record_time
from infrastructure.event_store import DuplicateAggregate, EventStore
from projections.readers import NamedQueryRow as NamedQueryRow
from projections.readers import ReadModels

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$")


def normalise_query(query: Any) -> QueryParameters:
    """The stored form of a query object: every value a list of strings."""
    if not isinstance(query, dict) or not query:
        raise InvalidRequest("query must be a non-empty object of EPCIS query parameters")
    result: QueryParameters = {}
    for key, value in query.items():
        items = value if isinstance(value, list) else [value]
        if not items or any(isinstance(i, dict | list) or i is None for i in items):
            raise InvalidRequest(f"query.{key} must be a list of strings or numbers")
        result[str(key)] = [
            ("true" if i else "false") if isinstance(i, bool) else str(i) for i in items
        ]
    return result


class NamedQueryService:
    """Defines, lists, deletes and runs named queries."""

    def __init__(
        self,
        store: EventStore,
        read_models: ReadModels,
        events: EventQueryService,
        follower: ReadModelFollower,
        blocking: BlockingRunner,
        *,
        read_your_writes_timeout: float,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._read_models = read_models
        self._events = events
        self._follower = follower
        self._blocking = blocking
        self._timeout = read_your_writes_timeout
        self._clock = clock

    async def define(self, name: Any, query: Any, defined_by: str | None) -> NamedQueryRow:
        """Store a new named query; AlreadyExists if the name is taken."""
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidRequest(
                "name must be 1 to 200 letters, digits, '.', '_', '~' or '-', "
                "starting with a letter or digit"
            )
        parameters = normalise_query(query)
        try:
            parse_event_query(parameters)
        except QueryParameterError as exc:
            raise InvalidRequest(f"query: {exc}") from exc
        now = format_record_time(self._clock())
        position = await self._blocking.run(self._define, name, parameters, defined_by, now)
        await self._follower.wait_for(position, self._timeout)
        # Answer from what was stored, not the read model: it may still be catching up.
        return NamedQueryRow(name, parameters, defined_by, now)

    def _define(
        self, name: str, parameters: QueryParameters, defined_by: str | None, now: str
    ) -> int:
        try:
            existing: NamedQuery = self._store.get(NamedQuery.create_id(name))
        except KeyError:
            try:
                return self._store.save(NamedQuery(name, parameters, defined_by, now))
            except DuplicateAggregate as exc:
                raise AlreadyExists(f"A query named '{name}' already exists") from exc
        if not existing.deleted:
            raise AlreadyExists(f"A query named '{name}' already exists")
        existing.redefine(parameters, defined_by, now)
        try:
            return self._store.save(existing)
        except DuplicateAggregate as exc:
            raise AlreadyExists(f"A query named '{name}' already exists") from exc

    async def get(self, name: str) -> NamedQueryRow:
        """One named query; NotFound if there is none."""
        row = await self._blocking.run(self._read_models.named_query, name)
        if row is None:
            raise NotFound(f"No query named '{name}'")
        return row

    async def list(self) -> list[NamedQueryRow]:
        """Every named query."""
        return await self._blocking.run(self._read_models.named_queries)

    async def delete(self, name: str, caller: Accountability) -> None:
        """Delete a named query; NotFound if there is none, Forbidden unless the caller
        defined it or is an administrator."""
        position = await self._blocking.run(self._delete, name, caller)
        await self._follower.wait_for(position, self._timeout)

    def _delete(self, name: str, caller: Accountability) -> int:
        try:
            query: NamedQuery = self._store.get(NamedQuery.create_id(name))
        except KeyError as exc:
            raise NotFound(f"No query named '{name}'") from exc
        if query.deleted:
            raise NotFound(f"No query named '{name}'")
        if not caller.admin and query.defined_by != caller.user:
            raise Forbidden(f"Only the user who defined '{name}' may delete it")
        query.delete(caller.user, format_record_time(self._clock()))
        try:
            return self._store.save(query)
        except DuplicateAggregate as exc:
            raise NotFound(f"No query named '{name}'") from exc

    async def events(
        self, name: str, paging: Mapping[str, Sequence[str]], scope: EventScope
    ) -> EventPage:
        """The events that currently match the named query and lie in the caller's
        scope, one page at a time."""
        row = await self.get(name)
        return await self._events.query(row.query, paging, scope)
