"""Signed access tokens: HS256 JSON Web Tokens (pyjwt) with a short lifetime."""

import hashlib
import threading
import time
from collections import OrderedDict
from typing import Any

import jwt

#: Tokens this service signs carry this issuer; any other bearer value is a static token.
ISSUER = "tracepoint"

#: Tokens whose signature was checked, remembered so a client's next requests with the
#: same token skip decoding it twice (about a tenth of a millisecond).
REMEMBERED_TOKENS = 1024


def signing_key(secret: bytes) -> bytes:
    """The HS256 key derived from the service secret: 32 bytes whatever the secret's
    length, and distinct from the key that signs page tokens."""
    return hashlib.sha256(b"tracepoint access tokens\x00" + secret).digest()


class ExpiredAccessToken(Exception):
    """The token was ours but its lifetime is over."""


class BadAccessToken(Exception):
    """The token claims to be ours but does not verify."""


class AccessTokens:
    """Issues and verifies the service's JWTs."""

    def __init__(self, secret: bytes) -> None:
        self._secret = signing_key(secret)
        # Verifying a token gives the same claims every time but for its expiry, which
        # is checked again at each use.
        self._verified: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def issue(self, claims: dict[str, Any], ttl_seconds: float) -> str:
        """A token with these claims, valid for `ttl_seconds`."""
        now = int(time.time())
        payload = {**claims, "iss": ISSUER, "iat": now, "exp": now + max(1, int(ttl_seconds))}
        return jwt.encode(payload, self._secret, algorithm="HS256")

    def is_ours(self, token: str) -> bool:
        """Whether the value is a JWT that names this service as its issuer."""
        with self._lock:
            if token in self._verified:
                return True
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return False
        return isinstance(claims, dict) and claims.get("iss") == ISSUER

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid token; raise ExpiredAccessToken or BadAccessToken."""
        with self._lock:
            known = self._verified.get(token)
            if known is not None:
                self._verified.move_to_end(token)
        if known is not None:
            if known["exp"] <= time.time():
                raise ExpiredAccessToken()
            return dict(known)
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._secret,
                algorithms=["HS256"],
                issuer=ISSUER,
                options={"require": ["exp", "iat", "iss"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise ExpiredAccessToken() from exc
        except jwt.PyJWTError as exc:
            raise BadAccessToken(str(exc)) from exc
        with self._lock:
            self._verified[token] = dict(claims)
            while len(self._verified) > REMEMBERED_TOKENS:
                self._verified.popitem(last=False)
        return claims
