"""`/audit` on the platform API (Directus envelope and errors): hex hashes, base64
signatures, proofs in RFC 9162's terms."""

import base64
from typing import Any

from aiohttp import web

from api.platform.keys import caller, service
from api.platform.responses import data_response
from application.audit.proofs import ConsistencyProof, InclusionProof
from domain.audit.heads import TreeHead

routes = web.RouteTableDef()


@routes.get("/audit/public-key")
async def public_key(request: web.Request) -> web.Response:
    """The key that checks every head: PEM, raw (base64) and its ID."""
    key = service(request).audit.proofs.public_key(caller(request)).public
    return data_response(
        {
            "algorithm": "Ed25519",
            "key_id": key.key_id,
            "public_key": key.pem(),
            "raw": base64.b64encode(key.raw()).decode(),
        }
    )


@routes.get("/audit/heads")
async def heads(request: web.Request) -> web.Response:
    """Signed heads, newest first (`limit`, default 100, and `offset`)."""
    found = await service(request).audit.proofs.heads(caller(request), _params(request))
    return data_response([h.as_json() for h in found])


@routes.get("/audit/heads/latest")
async def latest(request: web.Request) -> web.Response:
    """The newest signed head (null while the log is empty)."""
    head = await service(request).audit.proofs.latest(caller(request))
    return data_response(head.as_json() if head else None)


@routes.post("/audit/heads")
async def sign(request: web.Request) -> web.Response:
    """Sign a head of the tree as it is now (admins): the newest head when the log has
    not grown since."""
    head = await service(request).audit.proofs.sign_now(caller(request))
    return data_response(head.as_json() if head else None)


@routes.get("/audit/proof/inclusion")
async def inclusion(request: web.Request) -> web.Response:
    """The inclusion proof of an event (`eventID`) or log entry (`position`)."""
    proof = await service(request).audit.proofs.inclusion(caller(request), _params(request))
    return data_response(_inclusion(proof))


@routes.get("/audit/proof/consistency")
async def consistency(request: web.Request) -> web.Response:
    """The proof that the tree of `second` leaves extends that of `first`."""
    proof = await service(request).audit.proofs.consistency(caller(request), _params(request))
    return data_response(_consistency(proof))


def _inclusion(proof: InclusionProof) -> dict[str, Any]:
    return {
        "position": proof.position,
        "leaf_index": proof.leaf_index,
        "tree_size": proof.tree_size,
        "leaf_hash": proof.leaf_hash.hex(),
        "leaf_data": base64.b64encode(proof.leaf_data).decode() if proof.leaf_data else None,
        "audit_path": [h.hex() for h in proof.audit_path],
        "root_hash": proof.root_hash.hex(),
        "head": _head(proof.head),
    }


def _consistency(proof: ConsistencyProof) -> dict[str, Any]:
    return {
        "first": proof.first,
        "second": proof.second,
        "first_root_hash": proof.first_root.hex(),
        "second_root_hash": proof.second_root.hex(),
        "consistency_path": [h.hex() for h in proof.path],
        "head": _head(proof.head),
    }


def _params(request: web.Request) -> dict[str, list[str]]:
    return {key: request.query.getall(key) for key in set(request.query.keys())}


def _head(head: TreeHead | None) -> dict[str, object] | None:
    return head.as_json() if head else None
