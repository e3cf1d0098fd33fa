"""Reading requests: the caller's address, agent and token, JSON bodies, queries."""

import dataclasses
from datetime import UTC, datetime
from typing import Any

import orjson
from aiohttp import web

from application.service.errors import InvalidPayload, InvalidQuery
from domain.access.policies import Accountability
from domain.collections.item_query import ItemQuery, parse_query, query_from_object
from domain.collections.query_errors import QueryError

SESSION_COOKIE = "platform_session_token"
REFRESH_COOKIE = "platform_refresh_token"


def client_ip(request: web.Request, trust_proxy: bool) -> str | None:
    """The client's address: the connection's peer, or behind a trusted proxy the address
    that proxy saw, the last of X-Forwarded-For (the earlier ones the client can write)."""
    if trust_proxy:
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        if forwarded:
            return forwarded
    return request.remote


def extract_token(request: web.Request) -> str | None:
    """The access token of a request: `access_token` in the query, a Bearer header, or
    (when neither is there) the session cookie. A query token and a header together are
    refused, as RFC 6750 asks."""
    query = request.query.get("access_token")
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    header = value.strip() if scheme.lower() == "bearer" else None
    if query and header:
        raise InvalidPayload("The request uses more than one method for including an access token")
    return query or header or request.cookies.get(SESSION_COOKIE) or None


async def read_json(request: web.Request) -> Any:
    """The decoded JSON body; INVALID_PAYLOAD when it is missing or malformed."""
    raw = await request.read()
    if not raw.strip():
        raise InvalidPayload("Payload in body is required")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidPayload(f"Invalid JSON: {exc}") from exc


def item_key(request: web.Request) -> str:
    """The key of a single-item route (`…/{key:.+}`). Sent as one segment
    (`%2F01%2F09506000134352`) it is percent-decoded. Sent with its slashes, as the
    Directus SDKs send keys, it is a GS1 Digital Link path whose values are percent-encoded
    already (`/01/09506000134352/10/2024%2F07`), so it is taken as sent."""
    key = request.match_info["key"]
    resource = request.match_info.route.resource
    pattern = resource.get_info().get("pattern") if resource and "/" in key else None
    sent = pattern.fullmatch(request.rel_url.raw_path) if pattern else None
    if sent is not None and "/" in sent.group("key"):
        return sent.group("key")
    return key


def item_query(request: web.Request) -> ItemQuery:
    """The global query parameters of a request."""
    try:
        return parse_query(list(request.query.items()))
    except QueryError as exc:
        raise InvalidQuery(str(exc)) from exc


def search_query(body: Any) -> tuple[ItemQuery, list[Any] | None]:
    """The query and keys of a SEARCH body `{"query": {...}, "keys": [...]}`."""
    if not isinstance(body, dict) or set(body) - {"query", "keys"}:
        raise InvalidPayload('The body may hold only "query" and "keys"')
    keys = body.get("keys")
    if keys is not None and not isinstance(keys, list):
        raise InvalidPayload('"keys" must be a list')
    raw = body.get("query", {})
    if not isinstance(raw, dict):
        raise InvalidPayload('"query" must be an object')
    try:
        return query_from_object(raw), keys
    except QueryError as exc:
        raise InvalidQuery(str(exc)) from exc


def as_of(text: str) -> datetime:
    """The moment of an `as_of` parameter (ISO 8601; naive times are UTC)."""
    text = text.strip()
    # An unencoded "+" of an offset arrives from a query string as a space.
    if len(text) > 19 and text[-6] == " " and text[-3] == ":":
        text = f"{text[:-6]}+{text[-5:]}"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidQuery('"as_of" must be an ISO 8601 date-time') from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def with_agent(caller: Accountability, request: web.Request) -> Accountability:
    """The caller with the request's User-Agent, for the activity log."""
    agent = request.headers.get("User-Agent")
    return dataclasses.replace(caller, user_agent=agent) if agent else caller
