"""The log trains compression dictionaries on its own entries as it grows: entries after
one are stored with it, every process reads them, and the dictionary is a log entry."""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure import log_compression, log_dictionaries
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import EventStore, log_position, log_table
from tests.access.helpers import ok
from tests.audit.helpers import capture as capture_numbered
from tests.audit.helpers import event
from tests.commands import run_command
from tests.epcis.test_capture import Client, events
from tests.epcis.test_log_entries import python_example


@pytest.fixture(autouse=True)
def _small_logs_train(monkeypatch: pytest.MonkeyPatch) -> None:
    # A test's log holds a few hundred entries, not thousands.
    monkeypatch.setattr(log_dictionaries, "FIRST_AT", 100)


def newest_state(tracepoint: Tracepoint) -> bytes:
    """The stored bytes of the newest log entry."""
    with tracepoint.database.reading() as conn:
        table, position = log_table(conn.dialect.name), log_position(conn.dialect.name)
        return bytes(conn.fetchval(f"SELECT state FROM {table} ORDER BY {position} DESC LIMIT 1"))


async def trained(client: Client, tracepoint: Tracepoint) -> log_dictionaries.StoredDictionary:
    """Capture enough events to train on, and train."""
    await capture_numbered(client, *range(1, 151))
    dictionary = await asyncio.to_thread(tracepoint.core.dictionaries.train_if_due)
    assert dictionary is not None
    return dictionary


@contextmanager
def no_database_at_hand() -> Iterator[None]:
    """As in a process of its own with no database: no dictionary learned, none to ask."""
    known, lookups = dict(log_compression._known), list(log_compression._lookups)
    log_compression._known.clear()
    log_compression._lookups.clear()
    try:
        yield
    finally:
        log_compression._known.update(known)
        log_compression._lookups.extend(lookups)


@pytest.fixture
def forgetful(monkeypatch: pytest.MonkeyPatch) -> None:
    """What this test's process learns is forgotten after it (`_known.clear()` forgets it
    within, as in a process that did not train the dictionary)."""
    monkeypatch.setattr(log_compression, "_known", {})


async def test_no_dictionary_is_trained_before_the_log_holds_enough_entries(
    client: Client, tracepoint: Tracepoint
) -> None:
    await capture_numbered(client, 1, 2)
    assert await asyncio.to_thread(tracepoint.core.dictionaries.train_if_due) is None
    assert newest_state(tracepoint)[0] == 0x01


async def test_entries_after_a_trained_dictionary_are_stored_with_it(
    client: Client, tracepoint: Tracepoint
) -> None:
    dictionary = await trained(client, tracepoint)
    await capture_numbered(client, 151)
    state = newest_state(tracepoint)
    assert state[:9] == b"\x02" + log_compression.dictionary_id(dictionary.content)


async def test_an_event_stored_with_a_trained_dictionary_is_returned_as_captured(
    client: Client, tracepoint: Tracepoint
) -> None:
    await trained(client, tracepoint)
    await capture_numbered(client, 151)
    [found] = await events(client, EQ_eventID=event(151)["eventID"])
    assert {k: v for k, v in found.items() if k != "recordTime"} == event(151)


@pytest.mark.usefixtures("forgetful")
async def test_a_process_that_did_not_train_the_dictionary_reads_it_from_the_log(
    client: Client, tracepoint: Tracepoint
) -> None:
    await trained(client, tracepoint)
    await capture_numbered(client, 151)
    log_compression._known.clear()
    [found] = await events(client, EQ_eventID=event(151)["eventID"])
    assert found["eventID"] == event(151)["eventID"]


async def test_a_process_started_later_stores_its_entries_with_the_newest_dictionary(
    client: Client, tracepoint: Tracepoint
) -> None:
    dictionary = await trained(client, tracepoint)
    other = EventStore(DatabaseUrl.parse(tracepoint.settings.database_url))
    try:
        other.save(
            CapturedEvent.captured("urn:uuid:x", event(999), {}, "2024-03-01T10:00:00.000Z", "c")
        )
    finally:
        other.close()
    state = newest_state(tracepoint)
    assert state[1:9] == log_compression.dictionary_id(dictionary.content)


async def test_the_next_dictionary_waits_until_the_log_has_grown_eightfold(
    client: Client, tracepoint: Tracepoint
) -> None:
    dictionary = await trained(client, tracepoint)
    training = tracepoint.core.dictionaries
    assert training.due_at == dictionary.trained_at * 8
    await capture_numbered(client, 151)
    assert await asyncio.to_thread(training.train_if_due) is None


async def test_a_dictionary_is_a_log_entry_the_audit_tree_covers(
    client: Client, tracepoint: Tracepoint
) -> None:
    await trained(client, tracepoint)
    with tracepoint.database.reading() as conn:
        table = log_table(conn.dialect.name)
        topic = conn.fetchval(f"SELECT topic FROM {table} WHERE originator_id = 'log-dictionaries'")
    assert topic == "log-dictionary"
    report = await asyncio.to_thread(tracepoint.audit.verification.verify)
    assert report.ok, report.findings


async def test_a_capture_of_the_due_size_wakes_the_training(
    client: Client, tracepoint: Tracepoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    woken: list[str] = []
    monkeypatch.setattr(tracepoint.core.background, "wake", woken.append)
    await capture_numbered(client, 1)
    assert woken == []
    await capture_numbered(client, *range(2, 120))
    assert woken == ["log-dictionary"]


@pytest.mark.usefixtures("forgetful")
async def test_replay_rebuilds_the_query_tables_from_entries_of_a_trained_dictionary(
    client: Client, tracepoint: Tracepoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    await trained(client, tracepoint)
    await capture_numbered(client, 151, 152)
    before = await events(client, perPage="200")
    log_compression._known.clear()
    monkeypatch.setenv("TRACEPOINT_DATABASE_URL", tracepoint.settings.database_url)
    monkeypatch.setenv("TRACEPOINT_SECRET", "test-secret")
    result = await run_command("replay")
    assert result.exit_code == 0, result.output
    assert await events(client, perPage="200") == before


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_documented_way_to_read_the_log_reads_entries_of_a_trained_dictionary(
    client: Client,
    tracepoint: Tracepoint,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await trained(client, tracepoint)
    await capture_numbered(client, 151)
    example = python_example(Path("docs/operations.md"), "### Reading the log directly")
    database = DatabaseUrl.parse(tracepoint.settings.database_url).path
    with no_database_at_hand():  # a script of its own
        exec(example.replace('"var/tracepoint.db"', repr(database)), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("captured {")
    assert event(151)["eventID"] in printed[-1]


async def proof_files(client: Client, tmp_path: Path, **params: str) -> tuple[str, str]:
    """The public key's file and an inclusion proof's, as an auditor keeps them."""
    key, proof = tmp_path / "key.json", tmp_path / f"{'-'.join(params.values())[-20:]}.json"
    key.write_bytes(orjson.dumps(await ok(client, "GET", "/audit/public-key")))
    proven = await ok(client, "GET", "/audit/proof/inclusion", params=params)
    proof.write_bytes(orjson.dumps(proven))
    return str(key), str(proof)


async def check_proofs(key: str, *proofs: str) -> tuple[int, str]:
    """`tracepoint check-proof` on an auditor's machine (the files, no database): its exit
    code and what it printed, on one line (the console wraps at its width)."""
    with no_database_at_hand():
        result = await run_command("check-proof", "--public-key", key, *proofs)
    return result.exit_code, " ".join(result.output.split())


async def test_check_proof_names_the_dictionary_an_entry_needs_when_it_has_not_got_it(
    client: Client, tracepoint: Tracepoint, tmp_path: Path
) -> None:
    dictionary = await trained(client, tracepoint)
    await capture_numbered(client, 151)
    key, proof = await proof_files(client, tmp_path, eventID=event(151)["eventID"])
    code, output = await check_proofs(key, proof)
    assert code == 0, output
    named = log_compression.dictionary_id(dictionary.content).hex()
    assert f"(captured, compressed with the log's dictionary {named}:" in output
    assert f"GET /audit/proof/inclusion?dictionary={named}" in output


async def test_check_proof_reads_an_entry_after_the_proof_of_its_dictionary(
    client: Client, tracepoint: Tracepoint, tmp_path: Path
) -> None:
    dictionary = await trained(client, tracepoint)
    await capture_numbered(client, 151)
    named = log_compression.dictionary_id(dictionary.content).hex()
    key, first = await proof_files(client, tmp_path, dictionary=named)
    _, proof = await proof_files(client, tmp_path, eventID=event(151)["eventID"])
    code, output = await check_proofs(key, first, proof)
    assert code == 0, output
    assert output.count("ok:") == 2
    assert f"(log dictionary {named})" in output
    assert f"(event {event(151)['eventID']})" in output


async def test_training_moves_the_query_tables_past_the_dictionary_so_captures_project_inline(
    client: Client, tracepoint: Tracepoint
) -> None:
    await capture_numbered(client, *range(1, 151))
    await tracepoint.follower.stop()  # only the training's own transaction moves them
    assert await asyncio.to_thread(tracepoint.core.dictionaries.train_if_due) is not None
    with tracepoint.database.reading() as conn:
        positions = {p for (p,) in conn.fetchall("SELECT position FROM projection_positions")}
    assert positions == {tracepoint.store.max_position()}
