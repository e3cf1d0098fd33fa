"""What connections and outbound flows add to plain storage: checked partner URLs and
credentials, and a flow's cursor following its `max_record_time_processed`."""

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from application.epcis.delivery import OutboundGuard
from application.items.rules import CollectionRules, Item, Related
from application.service.errors import InvalidPayload
from domain.epcis.timestamps import timestamp_micros

#: An HTTP header name (RFC 9110 token); values must not break the header's line.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class EpcisConnectionRules(CollectionRules):
    """A connection names an http(s) endpoint, outside the service's own network unless
    allowed, and the credentials its auth type needs."""

    def __init__(self, guard: OutboundGuard) -> None:
        self._guard = guard

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check the URL and the credentials together."""
        merged = {**(current or {}), **values}
        url = merged.get("url")
        if "url" in values or current is None:
            try:
                parts = urlsplit(str(url or ""))
                host = parts.hostname
            except ValueError:
                host = None
            if host is None or parts.scheme not in ("http", "https"):
                raise InvalidPayload('"url" must be an http(s) URL with a host')
            refused = self._guard.refusal_now(str(url))
            if refused is not None:
                raise InvalidPayload(f'"url" {refused}')
        kind = merged.get("auth_type") or "none"
        if kind != "none" and not merged.get("auth_secret"):
            raise InvalidPayload(f'auth_type "{kind}" needs "auth_secret"')
        if kind == "header" and not merged.get("auth_header_name"):
            raise InvalidPayload('auth_type "header" needs "auth_header_name"')
        headers = merged.get("headers")
        if headers is not None and (
            not isinstance(headers, dict)
            or not all(isinstance(v, str | int | float) for v in headers.values())
            or not all(_TOKEN.fullmatch(str(k)) for k in headers)
        ):
            raise InvalidPayload('"headers" must be an object of header names and values')
        texts = dict(headers or {})
        texts.update({k: merged.get(k) for k in ("auth_username", "auth_secret")})
        for name, value in texts.items():
            if isinstance(value, str) and _CONTROL.search(value):
                raise InvalidPayload(f'"{name}" may not hold control characters (line breaks)')
        if merged.get("auth_header_name") and not _TOKEN.fullmatch(str(merged["auth_header_name"])):
            raise InvalidPayload('"auth_header_name" must be an HTTP header name')
        return values


class OutboundFlowRules(CollectionRules):
    """A flow needs a connection and a named query; moving `max_record_time_processed`
    moves the cursor (back: the flow sends again what was recorded after that time);
    setting `active` back to true clears the error that stopped it."""

    def __init__(self, position_before: Callable[[int], int], wake: Callable[[], None]) -> None:
        self._position_before = position_before
        self._wake = wake

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check what the flow needs; follow the cursor and the active switch."""
        merged = {**(current or {}), **values}
        for needed in ("connection", "epcis_query"):
            if not merged.get(needed):
                raise InvalidPayload(f'A flow needs "{needed}"')
        values = dict(values)
        moment = values.get("max_record_time_processed")
        if "max_record_time_processed" in values and (
            current is None or moment != current.get("max_record_time_processed")
        ):
            values["last_position"] = (
                0 if moment is None else self._position_before(timestamp_micros(str(moment)))
            )
        if values.get("active") and (current is None or not current.get("active")):
            values.update(status="idle", last_error=None)
        return values

    async def after_create(self, items: object) -> None:
        """A new flow runs without waiting for the next look."""
        self._wake()

    async def after_update(self, caller: object, keys: object, changes: Item) -> None:
        """A flow switched on, or moved back, runs at once."""
        if changes.get("active") or "max_record_time_processed" in changes:
            self._wake()
