"""`/v2/epcis/events` and the named-query endpoints under `/v2/epcis/queries`."""

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import orjson
from aiohttp import web

from api.epcis.negotiation import NotAcceptable, negotiated
from api.epcis.responses import EPCIS_VERSION_HEADERS, json_response
from api.epcis.subscriptions import stream_events, wants_websocket
from api.epcis.xml_responses import wants_xml, xml_query_document
from api.platform.keys import caller, event_scope, service
from application.epcis.event_queries import PAGING_PARAMETERS, EventPage
from application.epcis.named_queries import NamedQueryRow
from application.service.errors import InvalidRequest, NotFound
from domain.epcis.epc_format import applied_format
from domain.epcis.event_query import QueryParameterError
from domain.epcis.master_data_query import MASTER_DATA_QUERY, query_type, vocabulary_document
from domain.epcis.outbound import query_document
from domain.epcis.query_curies import extension_prefixes

routes = web.RouteTableDef()


def _split(request: web.Request) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    params: dict[str, list[str]] = {}
    paging: dict[str, list[str]] = {}
    for key, value in request.query.items():
        (paging if key in PAGING_PARAMETERS else params).setdefault(key, []).append(value)
    return params, paging


def _document(page: EventPage, query_name: str) -> bytes:
    """The EPCISQueryDocument, assembled around the stored event JSON without re-encoding it."""
    created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return query_document(page.events, page.namespaces or {}, created, query_name)


async def page_response(request: web.Request, page: EventPage, query_name: str) -> web.Response:
    """A page of events as the request negotiated it, with the Link to the next page."""
    headers = dict(EPCIS_VERSION_HEADERS)
    epc_format = negotiated(request).epc_format
    page = replace(
        page, events=await service(request).epcis.epc_formats.events(page.events, epc_format)
    )
    headers["GS1-EPC-Format"] = applied_format(epc_format).value
    if page.next_page_token:
        params = [(k, v) for k, v in request.query.items() if k != "nextPageToken"]
        params.append(("nextPageToken", page.next_page_token))
        url = request.url.with_query(None)
        headers["Link"] = f'<{url}?{urlencode(params)}>; rel="next"'
    if wants_xml(request):
        headers["GS1-CBV-XML-Format"] = negotiated(request).cbv_xml_format.value
        body = await xml_query_document(request, page, query_name)
        return web.Response(body=body, content_type="application/xml", headers=headers)
    return web.Response(
        body=_document(page, query_name), content_type="application/json", headers=headers
    )


@routes.get("/v2/epcis/events")
async def events(request: web.Request) -> web.Response:
    """SimpleEventQuery over all events, paged."""
    params, paging = _split(request)
    header = request.headers.get("GS1-Extensions")
    prefixes = extension_prefixes(header) if header else None
    page = await service(request).epcis.events.query(params, paging, event_scope(request), prefixes)
    return await page_response(request, page, "SimpleEventQuery")


@routes.get("/v2/epcis/events/{event_id:.+}")
async def event(request: web.Request) -> web.Response:
    """One event ID: the event and every error declaration of it (openapi.yaml), or 404."""
    event_id = request.match_info["event_id"]
    params = {"EQ_eventID": [event_id]}
    _, paging = _split(request)
    page = await service(request).epcis.events.query(params, paging, event_scope(request))
    if not page.events:
        raise NotFound(f"No event with ID '{event_id}'")
    return await page_response(request, page, "SimpleEventQuery")


def _query_body(row: NamedQueryRow) -> dict[str, Any]:
    return {
        "name": row.name,
        "query": row.query,
        "user_created": row.user_created,
        "date_created": row.date_created,
    }


@routes.view("/v2/epcis/queries")
class NamedQueriesView(web.View):
    """Create and list named queries."""

    async def post(self) -> web.Response:
        """Define a named query: 201 with its Location; 409 if the name is taken."""
        request = self.request
        try:
            body = orjson.loads(await request.read())
        except orjson.JSONDecodeError as exc:
            raise InvalidRequest(f"Body is not JSON: {exc}") from exc
        if not isinstance(body, dict) or "name" not in body or "query" not in body:
            raise InvalidRequest("The body needs 'name' and 'query'")
        row = await service(request).epcis.named_queries.define(
            body["name"], body["query"], caller(request)
        )
        return json_response(
            _query_body(row), status=201, headers={"Location": f"/v2/epcis/queries/{row.name}"}
        )

    async def get(self) -> web.Response:
        """Every named query."""
        rows = await service(self.request).epcis.named_queries.list(caller(self.request).accounts)
        return json_response([_query_body(row) for row in rows])


@routes.view("/v2/epcis/queries/{name}")
class NamedQueryView(web.View):
    """Read or delete one named query."""

    async def get(self) -> web.Response:
        """The named query's definition."""
        row = await service(self.request).epcis.named_queries.get(
            self.request.match_info["name"], caller(self.request).accounts
        )
        return json_response(_query_body(row))

    async def delete(self) -> web.Response:
        """Delete the named query."""
        await service(self.request).epcis.named_queries.delete(
            self.request.match_info["name"], caller(self.request)
        )
        return web.Response(status=204, headers=EPCIS_VERSION_HEADERS)


@routes.get("/v2/epcis/queries/{name}/events")
async def named_query_events(request: web.Request) -> web.StreamResponse:
    """The events that currently match a named query, paged like `/events`; with
    `Upgrade: websocket`, the events that match from now on, as they come."""
    if wants_websocket(request):
        return await stream_events(request)
    params, paging = _split(request)
    name = request.match_info["name"]
    named_queries = service(request).epcis.named_queries
    row = await named_queries.get(name, caller(request).accounts)
    if query_type(row.query) == MASTER_DATA_QUERY:
        return await _vocabulary_response(request, row)
    if params:
        raise QueryParameterError(
            f"{sorted(params)[0]}: a named query's parameters are fixed; "
            "only perPage and nextPageToken may be given"
        )
    page = await named_queries.events(name, paging, event_scope(request), caller(request).accounts)
    return await page_response(request, page, name)


async def _vocabulary_response(request: web.Request, row: NamedQueryRow) -> web.Response:
    """A master-data query's answer: every selected element in one document, JSON only
    (maxElementCount, not paging, bounds it)."""
    if request.query:
        raise QueryParameterError(
            f"{sorted(request.query)[0]}: a master-data query answers in one document "
            "and takes no parameters"
        )
    if wants_xml(request):
        raise NotAcceptable("A master-data query's results are served as JSON only")
    answer = await service(request).epcis.named_queries.master_data(row, caller(request))
    created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return json_response(vocabulary_document(answer.vocabulary_list, created, row.name))
