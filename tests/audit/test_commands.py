"""`tracepoint verify`, `tracepoint check-proof` and the replay, as an operator and an
auditor run them."""

from pathlib import Path
from typing import Any

import orjson
import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.audit.helpers import capture, change_entry, event
from tests.commands import run_command


@pytest.fixture
def environment(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands read the service's database from the environment."""
    monkeypatch.setenv("TRACEPOINT_DATABASE_URL", database_url)
    monkeypatch.setenv("TRACEPOINT_SECRET", "test-secret")


def _keep(path: Path, value: Any) -> str:
    path.write_bytes(orjson.dumps(value))
    return str(path)


@pytest.mark.usefixtures("environment")
async def test_verify_passes_an_untouched_log_and_a_saved_head(
    client: Client, tmp_path: Path
) -> None:
    await capture(client, 1, 2)
    head = _keep(tmp_path / "head.json", await ok(client, "POST", "/audit/heads"))
    result = await run_command("verify", "--head", head)
    assert result.exit_code == 0, result.output
    assert "match the audit tree" in result.output


@pytest.mark.usefixtures("environment")
async def test_verify_fails_naming_the_first_changed_position(
    client: Client, tracepoint: Tracepoint, tmp_path: Path
) -> None:
    await capture(client, 1, 2)
    head = _keep(tmp_path / "head.json", await ok(client, "POST", "/audit/heads"))
    proof = await ok(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(1)["eventID"]}
    )
    change_entry(tracepoint, proof["position"])
    result = await run_command("verify", "--head", head)
    assert result.exit_code == 1
    assert f"first at log position {proof['position']}" in result.output
    assert "saved head" in result.output


@pytest.mark.usefixtures("environment")
async def test_verify_refuses_a_saved_head_that_is_not_one(tmp_path: Path) -> None:
    result = await run_command("verify", "--head", _keep(tmp_path / "head.json", {"tree_size": 3}))
    assert result.exit_code == 2
    assert "the tree head has no timestamp" in result.output


async def test_check_proof_confirms_the_api_s_answers_with_the_key_alone(
    client: Client, tmp_path: Path
) -> None:
    await capture(client, 1, 2)
    key = _keep(tmp_path / "key.json", await ok(client, "GET", "/audit/public-key"))
    saved_head = await ok(client, "POST", "/audit/heads")
    saved = _keep(tmp_path / "saved.json", saved_head)
    await capture(client, 3)
    inclusion = await ok(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(3)["eventID"]}
    )
    first = saved_head["tree_size"]
    consistency = await ok(client, "GET", "/audit/proof/consistency", params={"first": str(first)})
    files = [_keep(tmp_path / "inclusion.json", {"data": inclusion})]
    files.append(_keep(tmp_path / "consistency.json", consistency))
    result = await run_command("check-proof", "--public-key", key, "--head", saved, *files)
    assert result.exit_code == 0, result.output
    assert result.output.count("ok:") == 3
    # The proven entry is read from its own bytes: the event's ID is in them.
    assert f"(event {event(3)['eventID']})" in result.output


async def test_each_result_is_one_line_however_long_the_files_path(
    client: Client, tmp_path: Path
) -> None:
    await capture(client, 1)
    key = _keep(tmp_path / "key.json", await ok(client, "GET", "/audit/public-key"))
    folder = tmp_path / "an-auditors-folder-with-a-name-longer-than-a-terminal-is-wide"
    folder.mkdir()
    inclusion = await ok(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(1)["eventID"]}
    )
    proof = _keep(folder / "inclusion.json", {"data": inclusion})
    result = await run_command("check-proof", "--public-key", key, proof)
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.output.splitlines() if proof in line]
    assert line.startswith(f"ok: {proof}: ")
    assert f" (event {event(1)['eventID']}) is leaf " in line


async def test_check_proof_fails_a_changed_proof_or_a_forged_head(
    client: Client, tmp_path: Path
) -> None:
    await capture(client, 1, 2)
    key = _keep(tmp_path / "key.json", await ok(client, "GET", "/audit/public-key"))
    inclusion = await ok(
        client, "GET", "/audit/proof/inclusion", params={"eventID": event(1)["eventID"]}
    )
    path = inclusion["audit_path"]
    changed = {**inclusion, "audit_path": ["00" * 32, *path[1:]]}
    forged_head = {**inclusion["head"], "tree_size": inclusion["head"]["tree_size"] + 1}
    files = [
        _keep(tmp_path / "changed.json", changed),
        _keep(tmp_path / "forged.json", {**inclusion, "head": forged_head}),
        _keep(tmp_path / "other-entry.json", {**inclusion, "leaf_data": "AAAA"}),
    ]
    result = await run_command("check-proof", "--public-key", key, *files)
    assert result.exit_code == 1
    assert result.output.count("FAILED") == 3


@pytest.mark.usefixtures("environment")
async def test_replay_rebuilds_the_tree_and_keeps_the_signed_heads(
    client: Client, tracepoint: Tracepoint
) -> None:
    await capture(client, 1, 2)
    head = await ok(client, "POST", "/audit/heads")
    result = await run_command("replay")
    assert result.exit_code == 0, result.output
    assert "Rebuilt the audit tree" in result.output
    assert await ok(client, "GET", "/audit/heads") == [head]
    assert tracepoint.audit.verification.verify().ok


async def test_a_log_written_without_the_tree_gets_its_leaves_at_the_next_start(
    settings: Settings,
) -> None:
    off = Tracepoint(settings.model_copy(update={"audit_tree": False}))
    for n in (1, 2):
        off.store.save(
            CapturedEvent.captured(
                f"urn:uuid:{n}", event(n), {}, "2024-03-01T10:00:00.000Z", f"c{n}"
            )
        )
    messages = [f.message for f in off.audit.verification.verify().findings]
    assert messages[0].endswith("has no leaf")
    off.close()
    on = Tracepoint(settings)
    await on.start()
    try:
        on.store.save(
            CapturedEvent.captured("urn:uuid:3", event(3), {}, "2024-03-01T10:00:00.000Z", "c3")
        )
        report = on.audit.verification.verify()
        assert report.ok, report.findings
        assert report.entries == on.audit.heads.tree.size()
    finally:
        await on.stop()


def test_a_pipelined_append_after_entries_without_leaves_gives_them_theirs_first(
    settings: Settings,
) -> None:
    off = Tracepoint(settings.model_copy(update={"audit_tree": False}))
    off.store.save(
        *(
            CapturedEvent.captured(f"urn:uuid:{n}", event(n), {}, "2024-03-01T10:00:00.000Z", "c")
            for n in (1, 2)
        )
    )
    off.close()
    on = Tracepoint(settings)
    try:
        # As a small capture appends: its leaves' statement is answered only at the end.
        with on.database.transaction(pipelined=True) as conn:
            on.store.lock_within(conn)
            on.store.append_within(
                conn,
                CapturedEvent.captured("urn:uuid:3", event(3), {}, "2024-03-01T10:00:00.000Z", "c"),
            )
        report = on.audit.verification.verify()
        assert report.ok, report.findings
        assert report.entries == on.audit.heads.tree.size() == 3
    finally:
        on.close()
