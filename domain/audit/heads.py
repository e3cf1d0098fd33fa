"""Signed tree heads: what is signed, in RFC 6962's TreeHeadSignature form."""

import base64
import binascii
import struct
from dataclasses import dataclass

#: RFC 6962 §3.5: version v1 (0) and signature type tree_hash (1).
_TREE_HEAD_PREFIX = bytes((0, 1))


@dataclass(frozen=True)
class TreeHead:
    """The tree's size and root at a moment, and the signature over them."""

    tree_size: int
    root_hash: bytes
    #: Milliseconds since the Unix epoch, as RFC 6962 times a head.
    timestamp: int
    signature: bytes
    key_id: str

    def as_json(self) -> dict[str, object]:
        """The head as the API and saved-head files spell it (hex hash, base64 signature)."""
        return {
            "tree_size": self.tree_size,
            "root_hash": self.root_hash.hex(),
            "timestamp": self.timestamp,
            "signature": base64.b64encode(self.signature).decode(),
            "key_id": self.key_id,
        }


class MalformedHead(ValueError):
    """A head given as JSON lacks a field or has one in the wrong form."""


def head_from_json(value: object) -> TreeHead:
    """A head from the form `as_json` writes (a saved head); MalformedHead if it is not."""
    if not isinstance(value, dict):
        raise MalformedHead("a tree head is a JSON object")
    try:
        size, timestamp = value["tree_size"], value["timestamp"]
        root_hash = bytes.fromhex(value["root_hash"])
        signature = base64.b64decode(value["signature"], validate=True)
        key_id = value["key_id"]
    except KeyError as exc:
        raise MalformedHead(f"the tree head has no {exc.args[0]}") from exc
    except (TypeError, ValueError, binascii.Error) as exc:
        raise MalformedHead(f"a tree head's hash or signature is malformed: {exc}") from exc
    if not (isinstance(size, int) and isinstance(timestamp, int) and isinstance(key_id, str)):
        raise MalformedHead("tree_size and timestamp are integers, key_id a string")
    if size < 0 or len(root_hash) != 32:
        raise MalformedHead("tree_size is not negative and root_hash has 32 bytes")
    return TreeHead(size, root_hash, timestamp, signature, key_id)


def signed_bytes(tree_size: int, root_hash: bytes, timestamp: int) -> bytes:
    """What the key signs: version, signature type, timestamp (u64 ms), tree size (u64)
    and the root hash, as RFC 6962 §3.5's digitally-signed TreeHeadSignature."""
    return _TREE_HEAD_PREFIX + struct.pack(">QQ", timestamp, tree_size) + root_hash
