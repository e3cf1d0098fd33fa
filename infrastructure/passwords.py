"""Password and token hashing."""

import hashlib
import secrets
import threading

from argon2 import PasswordHasher
from argon2.exceptions import VerificationError

#: Argon2id passes and memory (KiB) of new password hashes unless the settings say
#: otherwise: argon2-cffi's defaults (RFC 9106's low-memory profile).
DEFAULT_TIME_COST = 3
DEFAULT_MEMORY_KIB = 65_536

_lock = threading.Lock()
_hasher = PasswordHasher(time_cost=DEFAULT_TIME_COST, memory_cost=DEFAULT_MEMORY_KIB)
#: A hash of a random password with the current cost, made when first needed.
_dummy: str | None = None


def set_hash_cost(time_cost: int, memory_kib: int) -> None:
    """Make new password hashes of this process with this Argon2id cost (the settings'
    `password_hash_time_cost` and `password_hash_memory_kib`).

    Existing hashes keep verifying whatever the cost: each hash names its own parameters.
    """
    global _hasher, _dummy
    with _lock:
        if (_hasher.time_cost, _hasher.memory_cost) != (time_cost, memory_kib):
            _hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_kib)
            _dummy = None


def hash_password(password: str) -> str:
    """An Argon2id hash of a password (slow on purpose: call it off the event loop)."""
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether the password matches the hash. Without a hash (an unknown user) it is
    checked against a random one of the current cost, so that costs what a known user
    does, and never matches."""
    if password_hash is None:
        _check(_dummy_hash(), password)
        return False
    return _check(password_hash, password)


def _check(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except VerificationError:
        return False


def _dummy_hash() -> str:
    global _dummy
    with _lock:
        if _dummy is None:
            _dummy = _hasher.hash(secrets.token_urlsafe(16))
        return _dummy


def hash_token(token: str) -> str:
    """A SHA-256 digest of a static token: tokens are long and random, so a fast hash
    suffices and lets a request look its user up by the digest."""
    # surrogateescape: a header with undecodable bytes still hashes (and matches nothing).
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
