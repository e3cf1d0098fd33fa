"""The value collections of the REST binding (`/epcs`, `/bizSteps`, …): which values the
caller's events hold, whether one is among them, and the events that hold it."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from application.access.event_scope import EventScope
from application.blocking import BlockingRunner
from application.epcis.epc_formats import EpcFormatService
from application.epcis.event_queries import EventPage, EventQueryService, scope_accounts
from application.epcis.page_tokens import PageTokens, fingerprint
from application.errors import NotFound
from domain.epcis.epc_format import EpcFormat
from domain.epcis.event_query import QueryParameterError
from domain.epcis.resources import EPC_VALUED, VALUE_PARAMETERS, may_name, member
from projections.epcis.event_reader import EpcisEventReader
from projections.epcis.event_values import EventValueReader


@dataclass(frozen=True)
class ValuePage:
    """One page of a value collection, and the token for the next page."""

    members: list[str]
    next_page_token: str | None


class ResourceService:
    """Answers the value collections and their members from the query tables' indexes,
    within the caller's scope: a partner never learns a value only events it may not
    read hold."""

    def __init__(
        self,
        values: EventValueReader,
        events: EpcisEventReader,
        queries: EventQueryService,
        formats: EpcFormatService,
        tokens: PageTokens,
        blocking: BlockingRunner,
    ) -> None:
        self._values = values
        self._events = events
        self._queries = queries
        self._formats = formats
        self._tokens = tokens
        self._blocking = blocking

    async def values(
        self,
        resource: str,
        paging: Mapping[str, Sequence[str]],
        scope: EventScope,
        epc_format: EpcFormat = EpcFormat.NO_PREFERENCE,
    ) -> ValuePage:
        """One page of the distinct values of `resource` the events in `scope` hold, in
        code-point order of their indexed form. Raises QueryParameterError or
        InvalidPageToken for bad paging."""
        per_page = self._queries.per_page(paging.get("perPage"))
        print_ = fingerprint({"resource": [resource]})
        tokens = paging.get("nextPageToken")
        after = None
        if tokens:
            if len(tokens) != 1:
                raise QueryParameterError("nextPageToken takes exactly one value")
            snapshot, after = self._tokens.read_after_value(tokens[0], print_)
        else:
            snapshot = await self._blocking.run(self._events.snapshot)
        found = await self._blocking.run(
            self._values.values,
            resource,
            limit=per_page + 1,
            snapshot=snapshot,
            after=after,
            scope=scope,
        )
        next_token = None
        if len(found) > per_page:
            found = found[:per_page]
            next_token = self._tokens.issue_after_value(snapshot, found[-1], print_)
        members = [member(resource, value) for value in found]
        if resource in EPC_VALUED:
            members = await self._formats.values(members, epc_format)
        return ValuePage(members, next_token)

    async def exists(
        self,
        resource: str,
        value: str,
        scope: EventScope,
        prefixes: Mapping[str, str] | None = None,
    ) -> bool:
        """Whether an event in `scope` holds `value` (in any of its spellings) as a value
        of `resource`."""
        if not may_name(resource, value):
            return False
        query = await self._queries.parsed(
            {VALUE_PARAMETERS[resource]: [value]}, prefixes, scope_accounts(scope)
        )
        snapshot = await self._blocking.run(self._events.snapshot)
        rows = await self._blocking.run(
            self._events.page, query, limit=1, snapshot=snapshot, scope=scope
        )
        return bool(rows)

    async def events(
        self,
        resource: str,
        value: str,
        params: Mapping[str, Sequence[str]],
        paging: Mapping[str, Sequence[str]],
        scope: EventScope,
        prefixes: Mapping[str, str] | None = None,
    ) -> EventPage:
        """One page of the events in `scope` that hold `value` and match `params`, as
        `/events` pages them. Raises NotFound when no such event holds `value` at all,
        QueryParameterError when `params` name the value's parameter again."""
        parameter = VALUE_PARAMETERS[resource]
        if parameter in params:
            raise QueryParameterError(
                f"{parameter} is given by the path /{resource}/{{id}}; it cannot be given again"
            )
        if not may_name(resource, value):
            raise NotFound(f"No {resource} member '{value}'")
        page = await self._queries.query({**params, parameter: [value]}, paging, scope, prefixes)
        # An empty first page is either a value no event holds (404) or one whose events
        # the other parameters exclude (an empty document).
        first_and_empty = not page.events and not paging.get("nextPageToken")
        if first_and_empty and not await self.exists(resource, value, scope, prefixes):
            raise NotFound(f"No {resource} member '{value}'")
        return page
