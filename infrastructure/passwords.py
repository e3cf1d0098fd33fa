"""Password and token hashing."""

import hashlib

from argon2 import PasswordHasher
from argon2.exceptions import VerificationError

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    """An Argon2id hash of a password (slow on purpose: call it off the event loop)."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether the password matches the hash."""
    try:
        return _hasher.verify(password_hash, password)
    except VerificationError:
        return False


def hash_token(token: str) -> str:
    """A SHA-256 digest of a static token: tokens are long and random, so a fast hash
    suffices and lets a request look its user up by the digest."""
    # surrogateescape: a header with undecodable bytes still hashes (and matches nothing).
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()
