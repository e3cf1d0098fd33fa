"""Checking the audit API's answers with nothing but the public key and a saved head: what
`tracepoint check-proof` does, and what an auditor's own code would do (docs/audit.md)."""

import base64
import binascii
from collections.abc import Mapping
from typing import Any

import orjson

from domain.audit.entries import parse_leaf_data
from domain.audit.heads import MalformedHead, TreeHead, head_from_json
from domain.audit.merkle import leaf_hash, verify_consistency, verify_inclusion
from infrastructure import log_dictionaries
from infrastructure.audit.signing_key import BadKey, PublicKey
from infrastructure.log_compression import UnknownDictionary, decompressed, dictionary_id


class CheckFailed(Exception):
    """An answer does not prove what it claims, or is not an answer of the audit API."""


def unwrapped(answer: Any) -> Any:
    """The answer without the platform API's `{"data": ...}` envelope."""
    if isinstance(answer, Mapping) and set(answer) == {"data"}:
        return answer["data"]
    return answer


def public_key_of(text: str) -> PublicKey:
    """The key of a PEM block or of `GET /audit/public-key`'s JSON answer; CheckFailed
    when it is neither."""
    stripped = text.strip()
    try:
        if stripped.startswith("{"):
            stripped = str(unwrapped(orjson.loads(stripped)).get("public_key", ""))
        return PublicKey.from_pem(stripped)
    except (orjson.JSONDecodeError, AttributeError, BadKey) as exc:
        raise CheckFailed(f"not an Ed25519 public key: {exc}") from exc


def signed_head(key: PublicKey, value: Any, what: str) -> TreeHead:
    """A head that the key signed; CheckFailed when it is malformed or not signed so."""
    try:
        head = head_from_json(unwrapped(value))
    except MalformedHead as exc:
        raise CheckFailed(f"{what}: {exc}") from exc
    if not key.signed(head):
        raise CheckFailed(f"{what} (tree size {head.tree_size}) is not signed by this key")
    return head


def check_inclusion(key: PublicKey, proof: Mapping[str, Any]) -> str:
    """Check an inclusion proof against the signed head it carries; what it proved."""
    head = signed_head(key, proof.get("head"), "the proof's head")
    try:
        leaf = bytes.fromhex(proof["leaf_hash"])
        path = [bytes.fromhex(h) for h in proof["audit_path"]]
        index, size, position = proof["leaf_index"], proof["tree_size"], proof["position"]
        data = proof.get("leaf_data")
        entry = base64.b64decode(data, validate=True) if data is not None else None
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise CheckFailed(f"not an inclusion proof of the audit API: {exc}") from exc
    if size != head.tree_size:
        raise CheckFailed(f"the proof is for tree size {size}, its head for {head.tree_size}")
    what = ""
    if entry is not None:
        if leaf_hash(entry) != leaf:
            raise CheckFailed("the entry's bytes do not hash to the proof's leaf")
        what = _described(entry, position)
    if not verify_inclusion(leaf, index, size, path, head.root_hash):
        raise CheckFailed(f"the path does not lead from leaf {index} to the signed root")
    return f"position {position}{what} is leaf {index} of the signed tree of {size} entries"


def _described(data: bytes, position: int) -> str:
    """What the proven entry is, read from its bytes: the event ID of a captured event
    (its state decompressed as docs/operations.md describes); CheckFailed when the bytes
    are not those of an entry at `position`."""
    try:
        entry = parse_leaf_data(data)
        if entry.position != position:
            raise CheckFailed(f"the entry's bytes are those of position {entry.position}")
        content = orjson.loads(decompressed(entry.state))
        if entry.topic == log_dictionaries.TOPIC:
            # A dictionary proven: the entries compressed with it read from here on.
            [dictionary] = log_dictionaries.learned([entry.state])
            return f" (log dictionary {dictionary_id(dictionary.content).hex()})"
    except UnknownDictionary as unknown:
        # The proof holds; the dictionary to read the entry is another entry of the log.
        return (
            f" ({entry.topic}, compressed with the log's dictionary {unknown.id.hex()}: give"
            f" its inclusion proof first to read it, GET /audit/proof/inclusion?dictionary="
            f"{unknown.id.hex()})"
        )
    except (ValueError, orjson.JSONDecodeError) as exc:
        raise CheckFailed(f"the entry's bytes cannot be read: {exc}") from exc
    event_id = content.get("event_id") if isinstance(content, dict) else None
    return f" (event {event_id})" if isinstance(event_id, str) else f" ({entry.topic})"


def check_consistency(key: PublicKey, saved: TreeHead, proof: Mapping[str, Any]) -> str:
    """Check that the signed head a consistency proof carries extends `saved`."""
    head = signed_head(key, proof.get("head"), "the proof's head")
    try:
        first, second = proof["first"], proof["second"]
        path = [bytes.fromhex(h) for h in proof["consistency_path"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckFailed(f"not a consistency proof of the audit API: {exc}") from exc
    if (first, second) != (saved.tree_size, head.tree_size):
        raise CheckFailed(
            f"the proof goes from {first} to {second} entries, the heads are of "
            f"{saved.tree_size} and {head.tree_size}"
        )
    if not verify_consistency(first, second, saved.root_hash, head.root_hash, path):
        raise CheckFailed(
            f"the log of {second} entries does not extend the saved head of {first}: "
            "entries it held were changed, removed or moved"
        )
    return f"the signed tree of {second} entries extends the saved head of {first}"
