"""Tampering with the stored log on purpose: each change is caught by `verify` and by a
head an auditor saved before it, and named."""

import pytest

from application.service.runtime import Tracepoint
from domain.audit.heads import TreeHead
from domain.audit.merkle import verify_consistency
from infrastructure.audit.signing_key import SigningKey
from tests.access.helpers import Client, call, ok
from tests.audit.helpers import capture, change_entry, entry_state, log_sql, positions


async def _saved_head(client: Client, tracepoint: Tracepoint, *numbers: int) -> TreeHead:
    """Capture events, then the head an auditor keeps."""
    await capture(client, *numbers)
    head = tracepoint.audit.heads.sign()
    assert head is not None
    return head


def _cut_leaves(tracepoint: Tracepoint, cut: int) -> None:
    """Remove the leaves of the entries from position `cut` on, as a tamperer would."""
    log_sql(tracepoint, "DELETE FROM audit_leaves WHERE first_position >= ?", (cut,))
    log_sql(
        tracepoint,
        "UPDATE audit_leaves SET hashes = substr(hashes, 1, CAST((? - first_position) * 32"
        " AS INTEGER)) WHERE first_position < ?",
        (cut, cut),
    )


def _verified(tracepoint: Tracepoint, saved: TreeHead | None = None) -> list[str]:
    report = tracepoint.audit.verification.verify(saved=saved)
    return [f.message for f in report.findings]


async def test_an_untouched_log_verifies_with_its_heads_and_a_saved_one(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2)
    await capture(client, 3)
    tracepoint.audit.heads.sign()
    report = tracepoint.audit.verification.verify(saved=saved)
    assert report.ok, report.findings
    assert report.heads == 2
    assert report.entries == len(positions(tracepoint))


async def test_changed_bytes_of_one_entry_are_named_and_break_the_saved_head(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2, 3)
    target = positions(tracepoint)[-2]
    change_entry(tracepoint, target)
    report = tracepoint.audit.verification.verify(saved=saved)
    assert report.first_position == target
    messages = [f.message for f in report.findings]
    assert f"the entry at position {target} does not match its leaf" in messages[0]
    assert any("saved head" in m and "not consistent" in m for m in messages)
    assert any("signed head" in m and "does not match the log" in m for m in messages)


async def test_a_deleted_entry_is_named_and_breaks_the_saved_head(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2, 3)
    target = positions(tracepoint)[-2]
    log_sql(tracepoint, "DELETE FROM {log} WHERE {position} = ?", (target,))
    report = tracepoint.audit.verification.verify(saved=saved)
    assert report.first_position == target
    messages = [f.message for f in report.findings]
    assert f"the entry at position {target} (leaf" in messages[0]
    assert "missing from the log" in messages[0]
    assert any("saved head" in m for m in messages)


async def test_two_swapped_entries_are_named_by_the_first(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2, 3)
    first, second = positions(tracepoint)[-3], positions(tracepoint)[-1]
    one, other = entry_state(tracepoint, first), entry_state(tracepoint, second)
    log_sql(tracepoint, "UPDATE {log} SET state = ? WHERE {position} = ?", (other, first))
    log_sql(tracepoint, "UPDATE {log} SET state = ? WHERE {position} = ?", (one, second))
    report = tracepoint.audit.verification.verify(saved=saved)
    assert [f.position for f in report.findings if f.position is not None] == [first, second]
    assert any("saved head" in f.message for f in report.findings)


async def test_a_truncated_tail_is_caught_by_the_heads_and_the_saved_head(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2, 3)
    cut = positions(tracepoint)[-2]
    log_sql(tracepoint, "DELETE FROM {log} WHERE {position} >= ?", (cut,))
    report = tracepoint.audit.verification.verify(saved=saved)
    messages = [f.message for f in report.findings]
    assert report.first_position == cut
    assert "entries were removed from its end" in messages[0]
    # The tree's own traces removed as well: the saved head still knows.
    _cut_leaves(tracepoint, cut)
    log_sql(tracepoint, "DELETE FROM audit_heads")
    messages = _verified(tracepoint, saved)
    assert messages == [
        f"the log holds {saved.tree_size - 2} entries, fewer than the saved head of tree "
        f"size {saved.tree_size}: entries were removed from its end"
    ]


async def test_proofs_refuse_to_answer_for_a_tree_shorter_than_its_signed_head(
    client: Client, tracepoint: Tracepoint
) -> None:
    await _saved_head(client, tracepoint, 1, 2, 3)
    cut = positions(tracepoint)[-1]
    log_sql(tracepoint, "DELETE FROM {log} WHERE {position} >= ?", (cut,))
    _cut_leaves(tracepoint, cut)
    status, body = await call(
        client, "GET", "/audit/proof/inclusion", params={"position": str(positions(tracepoint)[0])}
    )
    assert status == 500
    assert "fewer than its newest signed head" in body["errors"][0]["message"]


async def test_an_entry_rewritten_with_its_leaf_is_caught_by_the_signed_heads(
    client: Client, tracepoint: Tracepoint
) -> None:
    saved = await _saved_head(client, tracepoint, 1, 2)
    target = positions(tracepoint)[-1]
    change_entry(tracepoint, target)
    tracepoint.audit.upkeep.rebuild()  # the leaves and nodes now hash the altered log
    # A head signed after it, over the altered log: the API's consistency proof from the
    # saved head to it does not hold.
    await capture(client, 9)
    await ok(client, "POST", "/audit/heads")
    proof = await ok(
        client, "GET", "/audit/proof/consistency", params={"first": str(saved.tree_size)}
    )
    new = proof["head"]
    assert not verify_consistency(
        saved.tree_size,
        new["tree_size"],
        saved.root_hash,
        bytes.fromhex(new["root_hash"]),
        [bytes.fromhex(h) for h in proof["consistency_path"]],
    )
    messages = _verified(tracepoint, saved)
    assert any(
        f"signed head of tree size {saved.tree_size} does not match the log" in m for m in messages
    )
    assert any("saved head" in m and "not consistent" in m for m in messages)


@pytest.mark.parametrize("where", ["stored", "saved"])
async def test_a_head_signed_with_another_key_is_caught(
    client: Client, tracepoint: Tracepoint, where: str
) -> None:
    real = await _saved_head(client, tracepoint, 1)
    forged = SigningKey.generate().sign(real.tree_size, real.root_hash, real.timestamp + 1)
    forged = TreeHead(
        forged.tree_size, forged.root_hash, forged.timestamp, forged.signature, real.key_id
    )
    if where == "stored":
        log_sql(tracepoint, "DELETE FROM audit_heads")
        tracepoint.audit.heads.tree.add_head(forged)
        messages = _verified(tracepoint)
    else:
        messages = _verified(tracepoint, forged)
    assert len(messages) == 1
    assert "is not signed by this service's key" in messages[0]
