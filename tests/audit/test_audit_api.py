"""`/audit`: signed heads and proofs that an auditor checks with the public key alone."""

import base64

from domain.audit.merkle import leaf_hash, verify_consistency, verify_inclusion
from tests.access.helpers import Client, call, code, ok, user_with
from tests.audit.helpers import capture, event, signature_holds


def _hex(values: list[str]) -> list[bytes]:
    return [bytes.fromhex(v) for v in values]


async def test_the_latest_head_is_signed_by_the_published_key(client: Client) -> None:
    await capture(client, 1, 2)
    key = await ok(client, "GET", "/audit/public-key")
    head = await ok(client, "GET", "/audit/heads/latest")
    assert key["algorithm"] == "Ed25519"
    assert head["key_id"] == key["key_id"]
    assert head["tree_size"] >= 2
    assert signature_holds(key["public_key"], head)
    forged = {**head, "tree_size": head["tree_size"] + 1}
    assert not signature_holds(key["public_key"], forged)


async def test_an_event_s_inclusion_proof_leads_to_the_signed_root(client: Client) -> None:
    await capture(client, 1, 2, 3)
    proof = await ok(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(2)["eventID"]}
    )
    head = proof["head"]
    assert proof["tree_size"] == head["tree_size"]
    assert proof["root_hash"] == head["root_hash"]
    assert verify_inclusion(
        bytes.fromhex(proof["leaf_hash"]),
        proof["leaf_index"],
        proof["tree_size"],
        _hex(proof["audit_path"]),
        bytes.fromhex(head["root_hash"]),
    )
    entry = base64.b64decode(proof["leaf_data"])
    assert leaf_hash(entry).hex() == proof["leaf_hash"]
    assert int.from_bytes(entry[:8], "big") == proof["position"]
    by_position = await ok(
        client, "GET", "/audit/proof/inclusion", params={"position": str(proof["position"])}
    )
    assert by_position == proof


async def test_a_later_head_is_proven_consistent_with_an_earlier_one(client: Client) -> None:
    await capture(client, 1)
    old = await ok(client, "POST", "/audit/heads")
    await capture(client, 2, 3, 4)
    new = await ok(client, "POST", "/audit/heads")
    assert new["tree_size"] > old["tree_size"]
    proof = await ok(
        client, "GET", "/audit/proof/consistency", params={"first": str(old["tree_size"])}
    )
    assert proof["second"] == new["tree_size"]
    assert proof["head"] == new
    assert verify_consistency(
        old["tree_size"],
        new["tree_size"],
        bytes.fromhex(old["root_hash"]),
        bytes.fromhex(new["root_hash"]),
        _hex(proof["consistency_path"]),
    )
    listed = await ok(client, "GET", "/audit/heads")
    assert [h["tree_size"] for h in listed[:2]] == [new["tree_size"], old["tree_size"]]


async def test_signing_again_without_new_entries_gives_the_same_head(client: Client) -> None:
    await capture(client, 1)
    first = await ok(client, "POST", "/audit/heads")
    assert await ok(client, "POST", "/audit/heads") == first


async def test_an_inclusion_proof_in_an_older_tree_of_a_chosen_size(client: Client) -> None:
    await capture(client, 1)
    old = await ok(client, "POST", "/audit/heads")
    await capture(client, 2)
    proof = await ok(
        client,
        "GET",
        "/audit/proof/inclusion",
        params={"eventID": event(1)["eventID"], "tree_size": str(old["tree_size"])},
    )
    assert proof["head"] == old
    assert verify_inclusion(
        bytes.fromhex(proof["leaf_hash"]),
        proof["leaf_index"],
        old["tree_size"],
        _hex(proof["audit_path"]),
        bytes.fromhex(old["root_hash"]),
    )


async def test_a_user_without_audit_permission_is_refused(client: Client) -> None:
    await capture(client, 1)
    user = await user_with(client, {"collection": "epcis_event", "action": "read"})
    for path in ("/audit/public-key", "/audit/heads", "/audit/heads/latest"):
        status, body = await call(client, "GET", path, token=user.token)
        assert (status, code(body)) == (403, "FORBIDDEN"), path


async def test_a_user_with_read_permission_on_audit_reads_heads_but_signs_none(
    client: Client,
) -> None:
    await capture(client, 1)
    user = await user_with(
        client,
        {"collection": "audit", "action": "read"},
        {"collection": "epcis_event", "action": "read"},
    )
    head = await ok(client, "GET", "/audit/heads/latest", token=user.token)
    assert head["tree_size"] >= 1
    await ok(
        client,
        "GET",
        "/audit/proof/inclusion",
        params={"eventID": event(1)["eventID"]},
        token=user.token,
    )
    status, body = await call(client, "POST", "/audit/heads", token=user.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    # An entry by position comes with its stored bytes, whatever it is: admins only.
    for named in ({"position": "1"}, {"dictionary": "00" * 8}):
        status, body = await call(
            client, "GET", "/audit/proof/inclusion", params=named, token=user.token
        )
        assert (status, code(body)) == (403, "FORBIDDEN"), named


async def test_bad_proof_requests_are_refused_with_invalid_query(client: Client) -> None:
    await capture(client, 1)
    head = await ok(client, "POST", "/audit/heads")
    size = head["tree_size"]
    bad = [
        ("/audit/proof/inclusion", {}),
        ("/audit/proof/inclusion", {"position": "abc"}),
        ("/audit/proof/inclusion", {"position": "-1"}),
        ("/audit/proof/inclusion", {"position": "1", "eventID": event(1)["eventID"]}),
        ("/audit/proof/inclusion", {"position": "999999"}),
        ("/audit/proof/inclusion", {"dictionary": "00" * 8}),
        ("/audit/proof/inclusion", {"dictionary": "not-hexadecimal!"}),
        ("/audit/proof/inclusion", {"dictionary": "00" * 8, "position": "1"}),
        ("/audit/proof/inclusion", {"eventID": event(1)["eventID"], "tree_size": str(size + 5)}),
        ("/audit/proof/inclusion", {"eventID": event(1)["eventID"], "tree_size": "0"}),
        ("/audit/proof/consistency", {}),
        ("/audit/proof/consistency", {"first": "x"}),
        ("/audit/proof/consistency", {"first": str(size + 1)}),
        ("/audit/proof/consistency", {"first": "1", "second": str(size + 9)}),
        ("/audit/proof/consistency", {"first": str(size), "second": "1"}),
        ("/audit/heads", {"limit": "100000"}),
        ("/audit/heads", {"offset": "-3"}),
    ]
    for path, params in bad:
        status, body = await call(client, "GET", path, params=params)
        assert (status, code(body)) == (400, "INVALID_QUERY"), (path, params, body)


async def test_an_event_nobody_captured_has_no_proof(client: Client) -> None:
    await capture(client, 1)
    status, body = await call(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(99)["eventID"]}
    )
    assert (status, code(body)) == (403, "FORBIDDEN")
