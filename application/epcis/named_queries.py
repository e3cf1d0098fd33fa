"""Named queries: store a SimpleEventQuery or a SimpleMasterDataQuery under a name and run
it later. A query object's `queryType` says which; without it, it is an event query."""

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from application.access.event_scope import EventScope
from application.epcis.event_queries import EventPage, EventQueryService
from application.epcis.master_data_queries import MasterDataQueryService, VocabularyAnswer
from application.items.rules import CollectionRules, Item
from application.items.service import ItemsService
from application.service.blocking import BlockingRunner
from application.service.errors import (
    AlreadyExists,
    Forbidden,
    InvalidPayload,
    InvalidRequest,
    NotFound,
    RecordNotUnique,
)
from domain.access.policies import SYSTEM, Accountability
from domain.collections.item_query import ItemQuery
from domain.epcis.curies import context_prefixes
from domain.epcis.event_query import QueryParameterError, parse_event_query
from domain.epcis.master_data_query import (
    EVENT_QUERY,
    MASTER_DATA_QUERY,
    QUERY_TYPE,
    parse_master_data_query,
    query_type,
)
from domain.epcis.named_query import QueryParameters
from domain.epcis.query_curies import expand_query
from domain.masterdata.epcis_queries import EPCIS_QUERIES
from projections.epcis.readers import NamedQueryRow as NamedQueryRow
from projections.epcis.readers import ReadModels


class UnknownQuery(NotFound):
    """No named query by that name (for this caller's accounts)."""


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$")
_NAME_RULE = (
    "must be 1 to 200 letters, digits, '.', '_', '~' or '-', starting with a letter or digit"
)


def normalise_query(query: Any) -> QueryParameters:
    """The stored form of a query object: every value a list of strings, the CURIEs its
    own `@context` binds expanded (so the query keeps the meaning it was defined with)."""
    if isinstance(query, dict) and "@context" in query:
        query = dict(query)
        bound = context_prefixes(query.pop("@context"))
    else:
        bound = {}
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
    namespaces = {prefix: namespace for prefix, namespace in bound.items() if namespace}
    try:
        kind = query_type(result)
        if kind == MASTER_DATA_QUERY:
            # Stored with its IRIs expanded and in the order the query states them.
            return _master_data_query(result, namespaces)
        # An event query is stored as before: without a type, so every reader of event
        # queries (subscriptions, flows) reads it as it always has.
        result.pop(QUERY_TYPE, None)
        return expand_query(result, namespaces) if namespaces else result
    except QueryParameterError as exc:
        raise InvalidRequest(f"query: {exc}") from exc


def _master_data_query(query: QueryParameters, namespaces: dict[str, str]) -> QueryParameters:
    """A master-data query with the CURIEs its `@context` binds expanded."""
    parsed = parse_master_data_query(query, namespaces)
    if not namespaces:
        return query
    expanded: QueryParameters = {QUERY_TYPE: [MASTER_DATA_QUERY]}
    for name, values in query.items():
        if name == "vocabularyName" and parsed.vocabularies is not None:
            expanded[name] = list(parsed.vocabularies)
        elif name in ("attributeNames", "HASATTR"):
            expanded[name] = list(
                (parsed.attribute_names if name == "attributeNames" else parsed.has_attributes)
                or ()
            )
        elif name in ("EQ_name", "WD_name"):
            expanded[name] = list(
                (parsed.names if name == "EQ_name" else parsed.within_names) or ()
            )
        elif name != QUERY_TYPE and not name.startswith("EQ_ATTR_"):
            expanded[name] = values
    for attribute, wanted in parsed.attribute_values:
        expanded["EQ_ATTR_" + attribute] = list(wanted)
    return expanded


class EpcisQueriesRules(CollectionRules):
    """Named queries written at `/items/epcis_queries` are checked like those defined
    through the EPCIS API: a usable name and parameters the event query understands."""

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Check the name and normalise the query parameters."""
        if creating and not (isinstance(values.get("name"), str) and _NAME.match(values["name"])):
            raise InvalidPayload(f"name {_NAME_RULE}")
        if values.get("query") is not None:
            try:
                values = {**values, "query": checked_query(values["query"])}
            except InvalidRequest as exc:
                raise InvalidPayload(str(exc)) from exc
        return values


def checked_query(query: Any) -> QueryParameters:
    """The stored form of a query object, refused unless the query of its type accepts it."""
    parameters = normalise_query(query)
    try:
        if query_type(parameters) == MASTER_DATA_QUERY:
            parse_master_data_query(parameters)
        else:
            parse_event_query(parameters)
    except QueryParameterError as exc:
        raise InvalidRequest(f"query: {exc}") from exc
    return parameters


class NamedQueryService:
    """Defines, lists, deletes and runs named queries: the `epcis_queries` records."""

    def __init__(
        self,
        items: ItemsService,
        read_models: ReadModels,
        events: EventQueryService,
        master_data: MasterDataQueryService,
        blocking: BlockingRunner,
    ) -> None:
        self._items = items
        self._read_models = read_models
        self._events = events
        self._master_data = master_data
        self._blocking = blocking

    async def define(self, name: Any, query: Any, caller: Accountability) -> NamedQueryRow:
        """Store a new named query; InvalidRequest for a bad name or query (the checks of
        EpcisQueriesRules), AlreadyExists if the name is taken."""
        try:
            stored = await self._items.create(
                _on_behalf_of(caller),
                EPCIS_QUERIES.name,
                [{"name": name, "query": query}],
                ItemQuery(fields=("*",)),
            )
        except RecordNotUnique as exc:
            raise AlreadyExists(f"A query named '{name}' already exists") from exc
        except InvalidPayload as exc:
            raise InvalidRequest(str(exc.extensions.get("reason", exc.message))) from exc
        # Written with administrator rights, the item is always read back.
        assert stored is not None
        item = stored[0]
        return NamedQueryRow(
            item["name"], item["query"], item["user_created"], item["date_created"]
        )

    async def get(self, name: str, accounts: tuple[str, ...] | None = None) -> NamedQueryRow:
        """One named query (of these accounts, when given); UnknownQuery if there is none."""
        row = await self._blocking.run(self._read_models.named_query, name, accounts)
        if row is None:
            raise UnknownQuery(f"No query named '{name}'")
        return row

    async def list(self, accounts: tuple[str, ...] | None = None) -> list[NamedQueryRow]:
        """Every named query (of these accounts, when given)."""
        return await self._blocking.run(self._read_models.named_queries, accounts)

    async def delete(self, name: str, caller: Accountability) -> None:
        """Delete a named query; UnknownQuery if there is none, Forbidden unless the caller
        defined it or is an administrator."""
        row = await self.get(name, caller.accounts)
        if not caller.admin and row.user_created != caller.user:
            raise Forbidden(f"Only the user who defined '{name}' may delete it")
        try:
            await self._items.delete(_on_behalf_of(caller), EPCIS_QUERIES.name, [name])
        except Forbidden as exc:
            # Deleted by someone else meanwhile.
            raise UnknownQuery(f"No query named '{name}'") from exc

    async def events(
        self,
        name: str,
        paging: Mapping[str, Sequence[str]],
        scope: EventScope,
        accounts: tuple[str, ...] | None = None,
    ) -> EventPage:
        """The events that currently match the named query and lie in the caller's
        scope, one page at a time."""
        row = await self.event_query(name, accounts)
        return await self._events.query(row.query, paging, scope)

    async def event_query(self, name: str, accounts: tuple[str, ...] | None) -> NamedQueryRow:
        """A named event query; UnknownQuery if there is none, QueryParameterError if it
        is a master-data query (which has no events to page or subscribe to)."""
        row = await self.get(name, accounts)
        if query_type(row.query) != EVENT_QUERY:
            raise QueryParameterError(
                f"'{name}' is a {MASTER_DATA_QUERY}: it answers vocabulary elements, "
                "not events to page through or subscribe to"
            )
        return row

    async def master_data(self, row: NamedQueryRow, caller: Accountability) -> VocabularyAnswer:
        """The vocabulary elements a named master-data query currently selects among the
        master data the caller may read."""
        return await self._master_data.query(row.query, caller)


def _on_behalf_of(caller: Accountability) -> Accountability:
    # The EPCIS API has checked the caller's rights; the record names who acted.
    return dataclasses.replace(SYSTEM, user=caller.user, account=caller.account)
