"""A captured event's log entry is kept compressed, and read back as it was captured."""

from pathlib import Path
from typing import Any

import orjson
import pytest

from application.service.runtime import Tracepoint
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import log_position, log_table
from infrastructure.log_compression import decompressed
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import Client, capture, events


async def test_a_captured_events_log_entry_is_stored_compressed(
    client: Client, tracepoint: Tracepoint
) -> None:
    event = object_event()
    assert (await capture(client, document(event))).status == 201
    with tracepoint.database.reading() as conn:
        table, position = log_table(conn.dialect.name), log_position(conn.dialect.name)
        stored = conn.fetchval(f"SELECT state FROM {table} ORDER BY {position} DESC LIMIT 1")
    entry: dict[str, Any] = orjson.loads(decompressed(stored))
    assert bytes(stored)[0] == 0x01
    assert len(stored) < len(orjson.dumps(entry)) / 2
    assert entry["epcis_event"] == event


async def test_a_compressed_entry_is_returned_as_captured(client: Client) -> None:
    event = object_event()
    await capture(client, document(event))
    [found] = await events(client)
    assert {k: v for k, v in found.items() if k not in ("eventID", "recordTime")} == event


def python_example(markdown: Path, heading: str) -> str:
    """The first Python example under `heading` in a Markdown document."""
    section = markdown.read_text().split(heading, 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_documented_way_to_read_the_log_prints_a_captured_event(
    client: Client, tracepoint: Tracepoint, capsys: pytest.CaptureFixture[str]
) -> None:
    event = object_event()
    await capture(client, document(event))
    example = python_example(Path("docs/operations.md"), "### Reading the log directly")
    database = DatabaseUrl.parse(tracepoint.settings.database_url).path
    exec(example.replace('"var/tracepoint.db"', repr(database)), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("captured {")
    assert orjson.loads(printed[-1].split(" ", 1)[1])["epcis_event"] == event
