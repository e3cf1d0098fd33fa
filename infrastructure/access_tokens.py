"""Signed access tokens: HS256 JSON Web Tokens (pyjwt) with a short lifetime."""

import hashlib
import time
from typing import Any

import jwt

#: Tokens this service signs carry this issuer; any other bearer value is a static token.
ISSUER = "tracepoint"


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

    def issue(self, claims: dict[str, Any], ttl_seconds: float) -> str:
        """A token with these claims, valid for `ttl_seconds`."""
        now = int(time.time())
        payload = {**claims, "iss": ISSUER, "iat": now, "exp": now + max(1, int(ttl_seconds))}
        return jwt.encode(payload, self._secret, algorithm="HS256")

    @staticmethod
    def is_ours(token: str) -> bool:
        """Whether the value is a JWT that names this service as its issuer."""
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return False
        return isinstance(claims, dict) and claims.get("iss") == ISSUER

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a valid token; raise ExpiredAccessToken or BadAccessToken."""
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
        return claims
