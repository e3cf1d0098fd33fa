"""The documentation of `/audit`, the tamper-evident record's routes (docs/audit.md), on
the platform API; `document.py` merges it with the other registries."""

from api.openapi.operation import Json, Operation, answer, query
from api.openapi.platform_routes import STRING, TEXT, object_of
from api.openapi.shapes import data, nullable

INTEGER: Json = {"type": "integer"}
HASHES: Json = {"type": "array", "items": STRING}
TREE_HEAD: Json = object_of(
    tree_size=INTEGER,
    root_hash=STRING,
    timestamp={"type": "integer", "description": "Milliseconds since the Unix epoch"},
    signature=STRING,
    key_id=STRING,
)
INCLUSION_PROOF: Json = object_of(
    position=INTEGER,
    leaf_index=INTEGER,
    tree_size=INTEGER,
    leaf_hash=STRING,
    leaf_data=nullable(STRING),
    audit_path=HASHES,
    root_hash=STRING,
    head=nullable(TREE_HEAD),
)
CONSISTENCY_PROOF: Json = object_of(
    first=INTEGER,
    second=INTEGER,
    first_root_hash=STRING,
    second_root_hash=STRING,
    consistency_path=HASHES,
    head=nullable(TREE_HEAD),
)

ROUTES: dict[str, Operation] = {
    "GET /audit/public-key": Operation(
        "audit",
        answer(
            200,
            data(object_of(algorithm=STRING, key_id=STRING, public_key=STRING, raw=STRING)),
        ),
        "The Ed25519 key that signs the audit tree's heads",
        description="Needs read on audit (docs/audit.md).",
    ),
    "GET /audit/heads": Operation(
        "audit",
        answer(200, data({"type": "array", "items": TREE_HEAD})),
        "Signed heads of the audit tree, newest first",
        query=(
            query("limit", {"type": "integer", "minimum": 0, "maximum": 1000}),
            query("offset", {"type": "integer", "minimum": 0}),
        ),
    ),
    "GET /audit/heads/latest": Operation(
        "audit", answer(200, data(nullable(TREE_HEAD))), "The newest signed head"
    ),
    "POST /audit/heads": Operation(
        "audit",
        answer(200, data(nullable(TREE_HEAD))),
        "Sign a head of the audit tree as it is now (admins)",
    ),
    "GET /audit/proof/inclusion": Operation(
        "audit",
        answer(200, data(INCLUSION_PROOF)),
        "The RFC 9162 inclusion proof of an event or log entry",
        description="Name the entry by eventID, or (admins) by position or by the ID of a log "
        "dictionary as check-proof names it; tree_size defaults to the newest signed head's.",
        query=(
            query("eventID", TEXT),
            query("position", {"type": "integer", "minimum": 1}),
            query("dictionary", {"type": "string", "pattern": "^[0-9a-f]{16}$"}),
            query("tree_size", {"type": "integer", "minimum": 1}),
        ),
    ),
    "GET /audit/proof/consistency": Operation(
        "audit",
        answer(200, data(CONSISTENCY_PROOF)),
        "The RFC 9162 proof that a larger tree extends a smaller one",
        query=(
            {**query("first", {"type": "integer", "minimum": 0}), "required": True},
            query("second", {"type": "integer", "minimum": 0}),
        ),
    ),
}
