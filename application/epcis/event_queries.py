"""Querying events: parse parameters, read one page below a snapshot, hand out the token."""

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from application.access.event_scope import EventScope
from application.epcis.page_tokens import PageCursor, PageTokens, fingerprint
from application.epcis.query_prefixes import QueryPrefixes
from application.service.blocking import BlockingRunner
from domain.epcis.event_contexts import in_one_document
from domain.epcis.event_query import (
    EventQuery,
    QueryParameterError,
    parse_event_query,
    place_tree,
)
from domain.epcis.master_data import BUSINESS_LOCATION, READ_POINT
from domain.gs1 import Glob
from projections.epcis.event_reader import EpcisEventReader, PageRow
from projections.epcis.location_tree import LocationTree

_WHOLE_NUMBER = re.compile(r"[0-9]{1,9}")

#: Parameters that shape paging rather than select events.
PAGING_PARAMETERS = ("perPage", "nextPageToken")


class QueryTooLarge(Exception):
    """More events match than the query's maxEventCount allows."""


@dataclass(frozen=True)
class EventPage:
    """One page of events, as JSON texts, the prefixes of the page's `@context`, and the
    token for the next page."""

    events: list[str]
    namespaces: dict[str, str]
    next_page_token: str | None
    per_page: int


class EventQueryService:
    """The query use case behind `/events` and named queries' `/events`."""

    def __init__(
        self,
        reader: EpcisEventReader,
        tokens: PageTokens,
        blocking: BlockingRunner,
        *,
        per_page_default: int,
        per_page_max: int,
        locations: LocationTree | None = None,
        prefixes: QueryPrefixes | None = None,
    ) -> None:
        self._reader = reader
        self._locations = locations
        self._prefixes = prefixes
        self._tokens = tokens
        self._blocking = blocking
        self.per_page_default = per_page_default
        self.per_page_max = per_page_max

    def per_page(self, values: Sequence[str] | None) -> int:
        """The page size `perPage` asks for (the default when absent); QueryParameterError
        when it is no whole number from 1 to the most allowed."""
        if not values:
            return self.per_page_default
        if len(values) != 1 or not _WHOLE_NUMBER.fullmatch(values[0]) or int(values[0]) < 1:
            raise QueryParameterError("perPage must be one positive whole number")
        per_page = int(values[0])
        if per_page > self.per_page_max:
            raise QueryParameterError(f"perPage may be at most {self.per_page_max}")
        return per_page

    async def query(
        self,
        params: Mapping[str, Sequence[str]],
        paging: Mapping[str, Sequence[str]],
        scope: EventScope,
        prefixes: Mapping[str, str] | None = None,
    ) -> EventPage:
        """One page of the events matching `params` (SimpleEventQuery parameters) within
        the caller's `scope` (None: every event).

        `paging` holds `perPage` and `nextPageToken` as given by the client, `prefixes`
        the CURIE prefixes it bound (`GS1-Extensions`).
        Raises QueryParameterError or InvalidPageToken for bad input.
        """
        query = await self.parsed(params, scope, prefixes)
        per_page = self.per_page(paging.get("perPage"))
        print_ = fingerprint({**{k: list(v) for k, v in params.items()}, **_bound(prefixes or {})})
        token_values = paging.get("nextPageToken")
        cursor = None
        if token_values:
            if len(token_values) != 1:
                raise QueryParameterError("nextPageToken takes exactly one value")
            cursor = self._tokens.read(token_values[0], print_)
        known = cursor.snapshot if cursor else None
        after = (cursor.sort_key, cursor.position) if cursor else None
        returned = cursor.returned if cursor else 0
        if known is None and query.max_event_count is not None:
            known = await self._blocking.run(self._reader.snapshot)
            await self._refuse_too_many(query, known, scope)
        if query.event_count_limit is not None:
            per_page = max(0, min(per_page, query.event_count_limit - returned))
        snapshot, rows = await self._blocking.run(self._page, query, per_page, known, after, scope)
        next_token = None
        # eventCountLimit ends the result, however many more events match.
        limit_reached = query.event_count_limit is not None and (
            returned + per_page >= query.event_count_limit
        )
        if len(rows) > per_page:
            rows = rows[:per_page]
            last = rows[-1]
            if not limit_reached:
                next_token = self._tokens.issue(
                    PageCursor(snapshot, last.sort_key, last.position, returned + len(rows)),
                    print_,
                )
        namespaces, events = in_one_document((row.document, row.namespaces) for row in rows)
        return EventPage(events, namespaces, next_token, per_page)

    async def position_of(self, event_id: str, scope: EventScope) -> int | None:
        """The log position of the event with `event_id` within `scope`, if there is one."""
        query = await self.parsed({"EQ_eventID": [event_id]}, scope)
        _, rows = await self._blocking.run(self._page, query, 1, None, None, scope)
        return rows[0].position if rows else None

    def _page(
        self,
        query: EventQuery,
        per_page: int,
        snapshot: int | None,
        after: tuple[int | float | str, int] | None,
        scope: EventScope,
    ) -> tuple[int, list[PageRow]]:
        """The snapshot (read now when the first page has none yet) and up to one more
        row than the page holds, in one trip to a worker thread: a query's fixed cost is
        mostly such trips."""
        if per_page and snapshot is None:
            return self._reader.snapshot_and_page(
                query, limit=per_page + 1, after=after, scope=scope
            )
        if snapshot is None:
            snapshot = self._reader.snapshot()
        if not per_page:
            return snapshot, []
        rows = self._reader.page(
            query, limit=per_page + 1, snapshot=snapshot, after=after, scope=scope
        )
        return snapshot, rows

    async def _refuse_too_many(self, query: EventQuery, snapshot: int, scope: EventScope) -> None:
        limit = query.max_event_count
        assert limit is not None
        matching = await self._blocking.run(
            self._reader.count_after, query, after=0, snapshot=snapshot, scope=scope
        )
        if matching > limit:
            raise QueryTooLarge(
                f"{matching} events match, more than the query's maxEventCount of {limit}"
            )

    async def parsed(
        self,
        params: Mapping[str, Sequence[str]],
        scope: EventScope,
        prefixes: Mapping[str, str] | None = None,
    ) -> EventQuery:
        """The query `params` state, as every reader of events runs it for a reader
        whose events are `scope`: CURIEs read by `prefixes`, else by the bindings of the
        documents the scope's accounts captured, WD_ widened to the sub-locations, and
        master data (WD_, HASATTR_, EQ_ATTR_) read from the scope's accounts.
        Raises QueryParameterError."""
        accounts = scope_accounts(scope)
        if self._prefixes is not None:
            params = await self._prefixes.expanded(params, prefixes or {}, accounts)
        query = parse_event_query(params)
        if accounts is not None:
            query = dataclasses.replace(query, master_data_accounts=accounts)
        return await self.with_sub_locations(query)

    async def with_sub_locations(self, query: EventQuery) -> EventQuery:
        """WD_bizLocation and WD_readPoint also find events at the places below the named
        ones in the location collection and the captured master data, at any depth."""
        if self._locations is None:
            return query
        if query.within_biz_locations:
            below = await self._below(query, query.within_biz_locations, BUSINESS_LOCATION)
            query = dataclasses.replace(query, biz_location_trees=query.biz_location_trees + below)
        if query.within_read_points:
            below = await self._below(query, query.within_read_points, READ_POINT)
            query = dataclasses.replace(query, read_point_trees=query.read_point_trees + below)
        return query

    async def _below(
        self, query: EventQuery, places: tuple[str, ...], vocabulary: str
    ) -> tuple[Glob, ...]:
        assert self._locations is not None
        below = await self._blocking.run(
            self._locations.within, places, vocabulary, query.master_data_accounts
        )
        return tuple(glob for place in sorted(below) for glob in place_tree(place))


def scope_accounts(scope: EventScope) -> tuple[str, ...] | None:
    """The accounts a tenant's scope limits it to (None: no account limit)."""
    if scope is None or any(query.capture_accounts is None for query in scope):
        return None
    return tuple(sorted({a for query in scope for a in query.capture_accounts or ()}))


def _bound(prefixes: Mapping[str, str]) -> dict[str, list[str]]:
    """The client's prefix bindings as they enter a page token's fingerprint."""
    return {f"@context:{prefix}": [namespace] for prefix, namespace in prefixes.items()}
