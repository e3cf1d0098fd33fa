"""The value collections of the REST binding (`/epcs`, `/bizSteps`, …): which values the
caller's events hold, whether one is among them, and the events that hold it."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from application.access.event_scope import EventScope
from application.epcis.epc_formats import EpcFormatService
from application.epcis.event_queries import EventPage, EventQueryService
from application.epcis.page_tokens import PageTokens, fingerprint
from application.service.blocking import BlockingRunner
from application.service.errors import NotFound
from domain.epcis.epc_format import DEFAULT_EPC_FORMAT, EpcFormat
from domain.epcis.event_query import QueryParameterError
from domain.epcis.resources import (
    EPC_VALUED,
    VALUE_PARAMETERS,
    is_standard_member,
    may_name,
    member,
    standard_members,
)
from projections.epcis.event_reader import EpcisEventReader
from projections.epcis.event_values import EventValueReader


@dataclass(frozen=True)
class ValuePage:
    """One page of a value collection, and the token for the next page."""

    members: list[str]
    next_page_token: str | None
    #: The form the members' EPCs are written in (collections of EPCs and places only).
    epc_format: EpcFormat | None = None


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
        epc_format: EpcFormat = DEFAULT_EPC_FORMAT,
    ) -> ValuePage:
        """One page of the distinct values of `resource` the events in `scope` hold (and,
        for `/bizSteps` and `/dispositions`, the CBV's standard values), in code-point
        order of their indexed form. Raises QueryParameterError or InvalidPageToken for
        bad paging."""
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
        standard = standard_members(resource, after)
        if standard:
            # Both lists are in index order, and the page's values are the first of their
            # union: any of the found ones among them is among the first found.
            found = sorted(set(found).union(standard))[: per_page + 1]
        next_token = None
        if len(found) > per_page:
            found = found[:per_page]
            next_token = self._tokens.issue_after_value(snapshot, found[-1], print_)
        members = [member(resource, value) for value in found]
        if resource not in EPC_VALUED:
            return ValuePage(members, next_token)
        # The index keeps each value in its canonical form, Digital Link for GS1 keys, not
        # as captured: that is the form given where no other is asked for.
        if epc_format is not EpcFormat.EPC_URN:
            epc_format = EpcFormat.DIGITAL_LINK
        members = await self._formats.values(members, epc_format)
        return ValuePage(members, next_token, epc_format)

    async def exists(
        self,
        resource: str,
        value: str,
        scope: EventScope,
        prefixes: Mapping[str, str] | None = None,
    ) -> bool:
        """Whether `value` (in any of its spellings) is a member of `resource` for the
        caller: a standard CBV value of `/bizSteps` or `/dispositions`, or a value an
        event in `scope` holds."""
        if not may_name(resource, value):
            return False
        if is_standard_member(resource, value):
            return True
        query = await self._queries.parsed({VALUE_PARAMETERS[resource]: [value]}, scope, prefixes)
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
        # An empty first page is either a value that is no member (404), or a member whose
        # events the other parameters exclude or that no event holds yet (an empty
        # document, as for a standard step nobody took).
        first_and_empty = not page.events and not paging.get("nextPageToken")
        if first_and_empty and not await self.exists(resource, value, scope, prefixes):
            raise NotFound(f"No {resource} member '{value}'")
        return page
