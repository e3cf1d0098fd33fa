"""The Ed25519 key that signs tree heads (`cryptography`), and its public half."""

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from domain.audit.heads import TreeHead, signed_bytes


class BadKey(ValueError):
    """A key given as PEM is not an Ed25519 key."""


class PublicKey:
    """Checks heads: what an auditor holds, from `GET /audit/public-key`."""

    def __init__(self, key: Ed25519PublicKey) -> None:
        self._key = key
        der = key.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        #: SHA-256 of the key's DER SubjectPublicKeyInfo, hex: as RFC 6962 names a log.
        self.key_id = hashlib.sha256(der).hexdigest()

    @classmethod
    def from_pem(cls, text: str | bytes) -> "PublicKey":
        """The key of a PEM `PUBLIC KEY` block; BadKey when it is no Ed25519 key."""
        data = text.encode() if isinstance(text, str) else text
        try:
            key = serialization.load_pem_public_key(data)
        except ValueError as exc:
            raise BadKey(f"not a PEM public key: {exc}") from exc
        if not isinstance(key, Ed25519PublicKey):
            raise BadKey("the public key is not an Ed25519 key")
        return cls(key)

    def pem(self) -> str:
        """The key as a PEM `PUBLIC KEY` block."""
        return self._key.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode()

    def raw(self) -> bytes:
        """The key's 32 bytes."""
        return self._key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    def signed(self, head: TreeHead) -> bool:
        """Whether this key signed the head (its key ID and its signature)."""
        if head.key_id != self.key_id:
            return False
        try:
            self._key.verify(
                head.signature, signed_bytes(head.tree_size, head.root_hash, head.timestamp)
            )
        except InvalidSignature:
            return False
        return True


class SigningKey:
    """Signs tree heads."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public = PublicKey(key.public_key())

    @classmethod
    def generate(cls) -> "SigningKey":
        """A new random key."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_pem(cls, text: str) -> "SigningKey":
        """The key of an unencrypted PEM `PRIVATE KEY` (PKCS #8) block."""
        try:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        except (ValueError, TypeError) as exc:
            raise BadKey(f"not an unencrypted PEM private key: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise BadKey("the signing key is not an Ed25519 key")
        return cls(key)

    def pem(self) -> str:
        """The key as an unencrypted PEM `PRIVATE KEY` block (to keep it)."""
        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()

    def sign(self, tree_size: int, root_hash: bytes, timestamp: int) -> TreeHead:
        """The signed head of a tree of `tree_size` with `root_hash` at `timestamp` (ms)."""
        signature = self._key.sign(signed_bytes(tree_size, root_hash, timestamp))
        return TreeHead(tree_size, root_hash, timestamp, signature, self.public.key_id)
