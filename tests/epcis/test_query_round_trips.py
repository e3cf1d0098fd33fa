"""A query's fixed cost is mostly its trips to the database: a first page reads its
snapshot and the numbers of the vocabulary values it names in one statement."""

from typing import Any

import pytest

from infrastructure.connection import Connection
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_place_time_queries import Client, found

HERE = "urn:epc:id:sgln:4012345.00001.0"
THERE = "urn:epc:id:sgln:4012345.00002.0"


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements that read the snapshot or term numbers, as they are sent."""
    sent: list[str] = []
    fetchall = Connection.fetchall

    def recording(conn: Connection, sql: str, params: Any = ()) -> Any:
        if "FROM epcis_terms" in sql or "MAX(position) FROM epcis_events" in sql:
            sent.append(sql)
        return fetchall(conn, sql, params)

    monkeypatch.setattr(Connection, "fetchall", recording)
    return sent


async def test_a_first_page_reads_its_snapshot_and_its_terms_in_one_statement(
    client: Client, statements: list[str]
) -> None:
    events = [
        object_event(eventID="urn:uuid:00000000-0000-4000-8000-000000000001"),
        object_event(eventID="urn:uuid:00000000-0000-4000-8000-000000000002", bizStep="receiving"),
        object_event(
            eventID="urn:uuid:00000000-0000-4000-8000-000000000003", bizLocation={"id": THERE}
        ),
    ]
    assert (await capture(client, document(*events))).status == 201
    statements.clear()
    params = {
        "EQ_bizStep": "shipping|unheard_of",
        "EQ_bizLocation": HERE,
        "eventType": "ObjectEvent",
    }
    assert await found(client, params) == ["1"]
    assert len(statements) == 1, statements


async def test_values_no_event_holds_find_nothing(client: Client, statements: list[str]) -> None:
    assert (await capture(client, document(object_event()))).status == 201
    assert await found(client, {"EQ_bizStep": "unheard_of"}) == []
    assert await found(client, {"EQ_disposition": "unheard_of", "EQ_bizStep": "shipping"}) == []
