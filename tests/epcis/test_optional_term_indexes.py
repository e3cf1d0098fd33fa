"""A step, disposition, read point or place is optional: the indexes of each hold only
the events that have one (partial indexes), and queries for a value still read them."""

from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.connection import Connection
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_place_time_queries import Client, found

HERE = "urn:epc:id:sgln:4012345.00001.0"

#: Each optional column, its indexes, and a query for a value of it.
OPTIONAL: list[tuple[str, tuple[str, ...], dict[str, str]]] = [
    (
        "biz_location_term",
        ("epcis_events_biz_location", "epcis_events_biz_location_time"),
        {"EQ_bizLocation": HERE},
    ),
    (
        "read_point_term",
        ("epcis_events_read_point", "epcis_events_read_point_time"),
        {"EQ_readPoint": HERE},
    ),
    (
        "biz_step_term",
        ("epcis_events_biz_step", "epcis_events_biz_step_time"),
        {"EQ_bizStep": "shipping"},
    ),
    ("disposition_term", ("epcis_events_disposition",), {"EQ_disposition": "in_transit"}),
]


def index_definition(conn: Connection, name: str) -> str:
    if conn.dialect.name == "sqlite":
        sql = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"
    else:
        sql = "SELECT indexdef FROM pg_indexes WHERE indexname = ?"
    return str(conn.fetchval(sql, (name,)))


@pytest.mark.parametrize(("column", "indexes", "params"), OPTIONAL)
async def test_events_without_the_value_have_no_entry_in_its_indexes(
    tracepoint: Tracepoint, column: str, indexes: tuple[str, ...], params: dict[str, str]
) -> None:
    with tracepoint.database.transaction(write=False) as conn:
        for name in indexes:
            # PostgreSQL gives the predicate back in parentheses.
            definition = index_definition(conn, name).replace("(", "").replace(")", "")
            assert f"WHERE {column} IS NOT NULL" in definition, definition


@pytest.mark.parametrize(("column", "indexes", "params"), OPTIONAL)
async def test_a_query_for_a_value_reads_its_partial_index(
    client: Client,
    tracepoint: Tracepoint,
    monkeypatch: pytest.MonkeyPatch,
    column: str,
    indexes: tuple[str, ...],
    params: dict[str, str],
) -> None:
    statements: list[tuple[str, list[Any]]] = []
    fetchall = Connection.fetchall

    def recording(conn: Connection, sql: str, sql_params: Any = ()) -> Any:
        if f"{column} IN (" in sql:
            statements.append((sql, list(sql_params)))
        return fetchall(conn, sql, sql_params)

    monkeypatch.setattr(Connection, "fetchall", recording)
    # Three events with each value (object_event's), one with none of them.
    none = {"bizStep": None, "disposition": None, "readPoint": None, "bizLocation": None}
    events = [object_event(), object_event(**none), object_event(), object_event()]
    assert (await capture(client, document(*events))).status == 201
    assert len(await found(client, params)) == 3
    assert statements
    plans = []
    with tracepoint.database.transaction(write=False) as conn:
        postgres = conn.dialect.name != "sqlite"
        if postgres:
            # A few rows: PostgreSQL would read the table rather than any index.
            conn.execute("SET LOCAL enable_seqscan = off")
        explain = "EXPLAIN" if postgres else "EXPLAIN QUERY PLAN"
        for sql, sql_params in statements:
            rows = fetchall(conn, f"{explain} {sql}", sql_params)
            plans.append(" ".join(str(row[-1]) for row in rows))
    assert any(indexes[0] in plan for plan in plans), plans
