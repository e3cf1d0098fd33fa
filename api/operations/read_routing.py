"""Read requests may be answered from a replica; writes note where they end (see
`application.operations.read_routing`)."""

from collections.abc import Awaitable, Callable

from aiohttp import web

from api.platform.keys import caller, service

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: Queries of these paths may be answered from a replica: EPCIS events, items, lists.
_ROUTED = ("/v2/epcis/events", "/v2/epcis/queries/", "/items/", "/v1/")
_READS = frozenset({"GET", "HEAD"})


@web.middleware
async def read_your_writes(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Route a read request's queries; after any other request, note the caller's
    write position, so its next read waits for a replica that has it (or uses the
    primary)."""
    reads = service(request).core.reads
    if not reads.enabled:
        return await handler(request)
    user = caller(request).user
    if request.method not in _READS:
        try:
            return await handler(request)
        finally:
            # A failed request may have written all the same. Noting never raises: a
            # committed write must not answer 503 (the client's resend would duplicate).
            await reads.wrote(user)
    if not _routed(request):
        return await handler(request)
    return await reads.read(user, lambda: handler(request))


def _routed(request: web.Request) -> bool:
    # A stream follows the primary's log position; a page token carries a snapshot of
    # the primary that a replica may not have reached: both stay on the primary.
    return (
        request.path.startswith(_ROUTED)
        and "nextPageToken" not in request.query
        and request.headers.get("Upgrade", "").lower() != "websocket"
    )
