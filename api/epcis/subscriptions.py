"""EPCIS 2.0 subscriptions: webhooks (`/v2/epcis/queries/{name}/subscriptions`,
`/v2/epcis/subscriptions`) and the WebSocket stream of `/v2/epcis/queries/{name}/events`."""

import asyncio
import contextlib
from typing import Any

import orjson
from aiohttp import web

from api.epcis.negotiation import negotiated
from api.epcis.responses import EPCIS_VERSION_HEADERS, json_response
from api.epcis.xml_responses import wants_xml
from api.platform.keys import caller, service
from application.service.errors import NotFound
from domain.epcis.epc_format import applied_format
from domain.epcis.subscriptions import SubscriptionControlsError, parse_subscription
from domain.epcis.timestamps import parse_timestamp

routes = web.RouteTableDef()


async def _body(request: web.Request) -> Any:
    try:
        return orjson.loads(await request.read())
    except orjson.JSONDecodeError as exc:
        raise SubscriptionControlsError(f"The body is not JSON: {exc}") from exc


async def _subscribe(request: web.Request, name: str | None) -> web.Response:
    body = await _body(request)
    if name is None:
        name = body.get("queryName") if isinstance(body, dict) else None
        if not isinstance(name, str) or not name:
            raise SubscriptionControlsError("'queryName' names the query to subscribe to")
    controls = parse_subscription(body, extra=frozenset({"queryName"}))
    formats = negotiated(request)
    created = await service(request).epcis.subscriptions.subscribe(
        caller(request),
        name,
        controls,
        formats.epc_format,
        xml=wants_xml(request),
        cbv_xml_format=formats.cbv_xml_format,
    )
    location = f"/v2/epcis/queries/{name}/subscriptions/{created['subscriptionID']}"
    return json_response(created, status=201, headers={"Location": location})


async def _listed(request: web.Request, name: str | None) -> web.Response:
    tracepoint = service(request)
    if name is not None:
        await tracepoint.epcis.named_queries.get(name, caller(request).accounts)
    return json_response(await tracepoint.epcis.subscriptions.listed(caller(request), name))


async def _one(request: web.Request, delete: bool) -> web.Response:
    key = request.match_info["subscription"]
    subscriptions = service(request).epcis.subscriptions
    found = await subscriptions.get(caller(request), key)
    name = request.match_info.get("name")
    if name is not None and found["queryName"] != name:
        raise NotFound(f"No subscription '{key}' to query '{name}'")
    if delete:
        await subscriptions.unsubscribe(caller(request), key)
        return web.Response(status=204, headers=EPCIS_VERSION_HEADERS)
    return json_response(found)


@routes.post("/v2/epcis/queries/{name}/subscriptions")
async def subscribe_to_query(request: web.Request) -> web.Response:
    """A webhook subscription to the named query: 201 with its subscriptionID. It
    delivers in the media type `Accept` prefers (JSON or XML), formats as the request's."""
    return await _subscribe(request, request.match_info["name"])


@routes.get("/v2/epcis/queries/{name}/subscriptions")
async def query_subscriptions(request: web.Request) -> web.Response:
    """The caller's subscriptions to the named query."""
    return await _listed(request, request.match_info["name"])


@routes.get("/v2/epcis/queries/{name}/subscriptions/{subscription}")
async def query_subscription(request: web.Request) -> web.Response:
    """One subscription."""
    return await _one(request, delete=False)


@routes.delete("/v2/epcis/queries/{name}/subscriptions/{subscription}")
async def unsubscribe_from_query(request: web.Request) -> web.Response:
    """End a subscription."""
    return await _one(request, delete=True)


@routes.post("/v2/epcis/subscriptions")
async def subscribe(request: web.Request) -> web.Response:
    """A webhook subscription to the query named in `queryName`."""
    return await _subscribe(request, None)


@routes.get("/v2/epcis/subscriptions")
async def subscriptions(request: web.Request) -> web.Response:
    """Every subscription of the caller."""
    return await _listed(request, None)


@routes.get("/v2/epcis/subscriptions/{subscription}")
async def subscription(request: web.Request) -> web.Response:
    """One subscription."""
    return await _one(request, delete=False)


@routes.delete("/v2/epcis/subscriptions/{subscription}")
async def unsubscribe(request: web.Request) -> web.Response:
    """End a subscription."""
    return await _one(request, delete=True)


def wants_websocket(request: web.Request) -> bool:
    """Whether a request asks to upgrade to a WebSocket."""
    return request.headers.get("Upgrade", "").lower() == "websocket"


async def stream_events(request: web.Request) -> web.StreamResponse:
    """The WebSocket subscription of a named query: every newly captured matching event,
    one EPCISQueryDocument per message, from `initialRecordTime` when given; in XML when
    the handshake's `Accept` prefers it, EPCs in its `GS1-EPC-Format`."""
    name = request.match_info["name"]
    initial = request.query.get("initialRecordTime")
    if initial is not None:
        try:
            parse_timestamp(initial)
        except ValueError as exc:
            raise SubscriptionControlsError(str(exc)) from exc
    await service(request).epcis.named_queries.event_query(name, caller(request).accounts)
    epc_format = negotiated(request).epc_format
    feed = service(request).epcis.subscriptions.stream(caller(request), name, initial, epc_format)
    socket = web.WebSocketResponse(heartbeat=30)
    socket.headers["GS1-EPC-Format"] = applied_format(epc_format).value
    await socket.prepare(request)
    xml = service(request).epcis.xml if wants_xml(request) else None
    cbv_format = negotiated(request).cbv_xml_format

    async def send() -> None:
        async for document in feed:
            if xml is not None:
                document = await xml.from_json(document, cbv_format)
            await socket.send_str(document.decode())

    sender = asyncio.create_task(send())
    try:
        # The client sends nothing; this ends when it goes away, and the feed with it.
        async for _message in socket:
            pass
    finally:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionResetError):
            await sender
        await feed.aclose()
        await socket.close()
    return socket
