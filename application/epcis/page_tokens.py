"""Opaque, signed `nextPageToken`s made of log positions."""

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import orjson


class InvalidPageToken(ValueError):
    """A token that was not issued by this service for this query."""


@dataclass(frozen=True)
class PageCursor:
    """Where the next page starts: the snapshot it reads and the last row's keys."""

    snapshot: int
    #: A time or position, or an extension field's value (orderBy=<fieldname>).
    sort_key: int | float | str
    position: int
    #: Events the earlier pages held (eventCountLimit counts across pages).
    returned: int = 0


class PageTokens:
    """Issues and checks tokens; each is bound to one query by a fingerprint."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, payload: bytes) -> bytes:
        return hmac.new(self._secret, payload, hashlib.sha256).digest()[:16]

    def issue(self, cursor: PageCursor, fingerprint: str) -> str:
        """A token for the page after `cursor` of the query with this fingerprint."""
        payload = orjson.dumps(
            [cursor.snapshot, cursor.sort_key, cursor.position, fingerprint, cursor.returned]
        )
        return base64.urlsafe_b64encode(self._mac(payload) + payload).decode().rstrip("=")

    def read(self, token: str, fingerprint: str) -> PageCursor:
        """The cursor inside a token; raises InvalidPageToken if it is forged or foreign."""
        snapshot, sort_key, position, issued_for, *rest = self._content(token)
        if issued_for != fingerprint:
            raise InvalidPageToken("nextPageToken belongs to a different query")
        # Tokens issued before counts were kept carry none.
        returned = int(rest[0]) if rest else 0
        key = sort_key if isinstance(sort_key, float | str) else int(sort_key)
        return PageCursor(int(snapshot), key, int(position), returned)

    def issue_after_value(self, snapshot: int, value: str, fingerprint: str) -> str:
        """A token for the page of a list of values that follows `value`."""
        payload = orjson.dumps(["value", snapshot, value, fingerprint])
        return base64.urlsafe_b64encode(self._mac(payload) + payload).decode().rstrip("=")

    def read_after_value(self, token: str, fingerprint: str) -> tuple[int, str]:
        """The snapshot and last value inside a token of `issue_after_value`; raises
        InvalidPageToken if it is forged, foreign or of another kind."""
        content = self._content(token)
        if len(content) != 4 or content[0] != "value" or content[3] != fingerprint:
            raise InvalidPageToken("nextPageToken belongs to a different query")
        snapshot, value = content[1], content[2]
        if not isinstance(snapshot, int) or not isinstance(value, str):
            raise InvalidPageToken("nextPageToken belongs to a different query")
        return snapshot, value

    def _content(self, token: str) -> list[Any]:
        """What a token this service signed holds; InvalidPageToken for any other."""
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError) as exc:
            raise InvalidPageToken("nextPageToken is not a token this service issued") from exc
        mac, payload = raw[:16], raw[16:]
        if len(mac) != 16 or not hmac.compare_digest(mac, self._mac(payload)):
            raise InvalidPageToken("nextPageToken is not a token this service issued")
        content = orjson.loads(payload)
        if not isinstance(content, list) or len(content) < 4:
            raise InvalidPageToken("nextPageToken is not a token this service issued")
        return content


def fingerprint(params: dict[str, list[str]]) -> str:
    """A stable digest of a query's parameters, independent of their order."""
    canonical = orjson.dumps({k: sorted(v) for k, v in params.items()}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:24]
