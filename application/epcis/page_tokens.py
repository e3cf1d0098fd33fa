"""Opaque, signed `nextPageToken`s made of log positions."""

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass

import orjson


class InvalidPageToken(ValueError):
    """A token that was not issued by this service for this query."""


@dataclass(frozen=True)
class PageCursor:
    """Where the next page starts: the snapshot it reads and the last row's keys."""

    snapshot: int
    sort_key: int
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
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError) as exc:
            raise InvalidPageToken("nextPageToken is not a token this service issued") from exc
        mac, payload = raw[:16], raw[16:]
        if len(mac) != 16 or not hmac.compare_digest(mac, self._mac(payload)):
            raise InvalidPageToken("nextPageToken is not a token this service issued")
        snapshot, sort_key, position, issued_for, *rest = orjson.loads(payload)
        if issued_for != fingerprint:
            raise InvalidPageToken("nextPageToken belongs to a different query")
        # Tokens issued before counts were kept carry none.
        returned = int(rest[0]) if rest else 0
        return PageCursor(int(snapshot), int(sort_key), int(position), returned)


def fingerprint(params: dict[str, list[str]]) -> str:
    """A stable digest of a query's parameters, independent of their order."""
    canonical = orjson.dumps({k: sorted(v) for k, v in params.items()}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()[:24]
