"""What outbound flows and subscriptions share: where they may send, how much and how long
they wait before trying again, and the `@context` of what they send.

It lives with EPCIS, beside subscriptions, so that flows build on EPCIS and not the other
way round."""

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from domain.access.outbound_targets import AllowList, refusal
from domain.epcis.event_contexts import DocumentEvents, in_one_document
from domain.epcis.event_query import EventQuery
from projections.epcis.event_reader import PageRow


@dataclasses.dataclass(frozen=True)
class DeliverySettings:
    """How flows and subscriptions deliver: events per document, documents per run, backoff."""

    batch_size: int = 500
    batches_per_run: int = 20
    retry_base: float = 2.0
    retry_max: float = 600.0


class OutboundGuard:
    """Refuses destinations on the service's own network unless they are allowed."""

    def __init__(
        self,
        allowed: AllowList,
        resolve: Callable[[str], Awaitable[list[str]]],
        resolve_now: Callable[[str], list[str]],
    ) -> None:
        self._allowed = allowed
        self._resolve = resolve
        self._resolve_now = resolve_now

    async def refusal(self, url: str) -> str | None:
        """Why the service must not send to `url`; None when it may."""
        host = _host(url)
        return refusal(url, await self._resolve(host) if host else [], self._allowed)

    def refusal_now(self, url: str) -> str | None:
        """`refusal`, off the event loop."""
        host = _host(url)
        return refusal(url, self._resolve_now(host) if host else [], self._allowed)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


def backoff_delay(failures: int, base: float, ceiling: float, jitter: float) -> float:
    """Seconds before the next try after `failures` in a row: exponential, capped, with
    half of it random (`jitter` in [0, 1)) so retries of many flows do not bunch up."""
    top = min(ceiling, base * 2.0 ** (failures - 1))
    return top / 2 + jitter * top / 2


def in_one_delivery(rows: Sequence[PageRow]) -> DocumentEvents:
    """The rows' events and the prefixes of the `@context` of the document that sends them."""
    return in_one_document((row.document, row.namespaces) for row in rows)


#: Parses a named query's parameters as the query endpoints do (`EventQueryService.parsed`):
#: CURIEs read, WD_bizLocation widened to the sub-locations in the master data, both by
#: what the given accounts captured (None: any account).
Expand = Callable[
    [Mapping[str, Sequence[str]], Mapping[str, str] | None, tuple[str, ...] | None],
    Awaitable[EventQuery],
]


async def log_reader_query(
    params: Mapping[str, Sequence[str]], expand: Expand, accounts: tuple[str, ...] | None
) -> EventQuery:
    """A named query's parameters as a reader of the log runs them for a caller of
    `accounts`: in log order (a cursor is a log position, whatever order the query asks
    for), CURIEs and WD_bizLocation read as the query endpoints read them for that caller.
    Raises QueryParameterError."""
    query = await expand(params, None, accounts)
    return dataclasses.replace(query, order_by="position", descending=False)
