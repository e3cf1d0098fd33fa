"""Password and token hashing."""

import functools
import hashlib
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

#: Argon2id passes and memory (KiB) of new password hashes unless the settings say
#: otherwise: argon2-cffi's defaults (RFC 9106's low-memory profile).
DEFAULT_TIME_COST = 3
DEFAULT_MEMORY_KIB = 65_536


class Passwords:
    """Argon2id password hashes at the cost the settings give (`password_hash_time_cost`,
    `password_hash_memory_kib`). Existing hashes verify whatever the cost: each names its
    own parameters. Slow on purpose: call it off the event loop."""

    def __init__(
        self, time_cost: int = DEFAULT_TIME_COST, memory_kib: int = DEFAULT_MEMORY_KIB
    ) -> None:
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib)

    @functools.cached_property
    def _dummy(self) -> str:
        """A hash of a random password at this cost, checked for unknown users (made at
        the first such check: at the production cost it takes a tenth of a second)."""
        return self._hasher.hash(secrets.token_urlsafe(16))

    def hash(self, password: str) -> str:
        """An Argon2id hash of a password."""
        return self._hasher.hash(password)

    def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether the password matches the hash. Without a hash (an unknown user) it is
        checked against a random one of this cost, so that costs what a known user does,
        and never matches."""
        if not password_hash:
            self._check(self._dummy, password)
            return False
        return self._check(password_hash, password)

    def _check(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            # A stored value that is no hash of ours matches no password.
            return False


def hash_token(token: str) -> str:
    """A SHA-256 digest of a static token: tokens are long and random, so a fast hash
    suffices and lets a request look its user up by the digest."""
    # surrogateescape: a header with undecodable bytes still hashes (and matches nothing).
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
