"""A page ordered by a field's numbers for a large selection is read by walking the
field's number index (projections/epcis/walked_keys.py): the same pages, in the same
order, as reading every selected event's key. Forced here on a small selection, in
chunks of two index entries, so every page crosses chunks."""

from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.connection import Connection
from projections.epcis import event_reader, walked_keys
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture
from tests.epcis.test_field_parameters import NS, Client, serials_page_by_page

#: Numbers only, by event in capture order: several values an event (its key is the
#: least, though a descending walk meets its largest first), ties, and events without one.
NUMBERS = [
    ("n1", 7),
    ("x1", None),
    ("n2", [2, 2]),
    ("n3", 7),
    ("n4", -1.5),
    ("n5", [30, 1]),
    ("n6", [9, 3]),
    ("x2", None),
    ("n7", 3),
    ("n8", 30),
]
KEYED_ASC = ["n4", "n5", "n2", "n6", "n7", "n1", "n3", "n8"]
KEYLESS = ["x1", "x2"]


@pytest.fixture
def walked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every selection walks, two index entries at a time; the pages the walk gave."""
    monkeypatch.setattr(event_reader, "WALK_FROM", 0)
    monkeypatch.setattr(walked_keys, "CHUNK", 2)
    pages: list[int] = []
    original = walked_keys.walked_page

    def noting(*args: Any) -> Any:
        page = original(*args)
        if page is not None:
            pages.append(len(page))
        return page

    monkeypatch.setattr(event_reader, "walked_page", noting)
    return pages


async def ordered(
    client: Client, direction: str, per_page: int, selecting: dict[str, str] | None = None
) -> list[str]:
    """Every page of the selected events (`selecting`, else every ObjectEvent) ordered by
    `ex:reading`, the events' names."""
    doc = document(
        *[
            object_event(
                epcList=[f"urn:epc:id:sgtin:4012345.011111.{name}"],
                **({} if value is None else {"ex:reading": value}),
            )
            for name, value in NUMBERS
        ],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    params = {
        "orderBy": "ex:reading",
        "orderDirection": direction,
        **(selecting or {"eventType": "ObjectEvent"}),
    }
    return await serials_page_by_page(client, params, per_page)


@pytest.mark.parametrize("per_page", [1, 3, 20])
async def test_walked_pages_hold_every_event_once_in_ascending_order(
    client: Client, walked: list[int], per_page: int
) -> None:
    assert await ordered(client, "ASC", per_page) == KEYED_ASC + KEYLESS


@pytest.mark.parametrize("per_page", [1, 3, 20])
async def test_walked_pages_hold_every_event_once_in_descending_order(
    client: Client, walked: list[int], per_page: int
) -> None:
    assert await ordered(client, "DESC", per_page) == KEYED_ASC[::-1] + KEYLESS[::-1]


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_the_pages_of_numbers_come_from_the_walk(
    client: Client, walked: list[int], direction: str
) -> None:
    await ordered(client, direction, 3)
    # Eight events with a number, three a page (each read with one more, to know that
    # another page follows): the third page runs into the events without one, which the
    # walk leaves to every selected event's key.
    assert walked == [4, 4]


@pytest.fixture
def walked_large(monkeypatch: pytest.MonkeyPatch, walked: list[int]) -> list[int]:
    """As `walked`, every selection too large to read whole: each chunk asks the
    selection's conditions which of the events met it holds."""
    monkeypatch.setattr(event_reader, "DRIVEN_LIMIT", 0)
    return walked


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
@pytest.mark.parametrize("per_page", [1, 3, 20])
async def test_a_selection_too_large_to_read_whole_walks_to_the_same_pages(
    client: Client, walked_large: list[int], direction: str, per_page: int
) -> None:
    expected = KEYED_ASC + KEYLESS if direction == "ASC" else KEYED_ASC[::-1] + KEYLESS[::-1]
    assert await ordered(client, direction, per_page) == expected


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_a_large_selection_keeps_only_the_events_it_selects(
    client: Client, walked_large: list[int], direction: str
) -> None:
    # Every event with a reading under 8: all but n8 (30) and those without one.
    below = [name for name in KEYED_ASC if name != "n8"]
    expected = below if direction == "ASC" else below[::-1]
    assert await ordered(client, direction, 3, {"LT_ex:reading": "8"}) == expected
    assert walked_large == [4, 4]


async def test_a_large_selections_pages_of_numbers_come_from_the_walk(
    client: Client, walked_large: list[int]
) -> None:
    await ordered(client, "ASC", 3)
    assert walked_large == [4, 4]


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_a_walk_that_would_run_too_long_leaves_the_page_to_the_keys(
    client: Client, walked: list[int], direction: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three entries at most: after its first chunk of two the walk expects to need more.
    monkeypatch.setattr(walked_keys, "WALK_LIMIT", 3)
    expected = KEYED_ASC + KEYLESS if direction == "ASC" else KEYED_ASC[::-1] + KEYLESS[::-1]
    assert await ordered(client, direction, 3) == expected
    assert walked == []


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_events_of_one_value_each_are_asked_their_least_value_once_a_page(
    client: Client, walked: list[int], direction: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    original = walked_keys._least_numbers

    def counting(conn: Any, field: int, positions: list[int]) -> dict[int, float]:
        asked.append(len(positions))
        return original(conn, field, positions)

    monkeypatch.setattr(walked_keys, "_least_numbers", counting)
    readings = {"s1": 5, "s2": 1, "s3": 4, "s4": 2, "s5": 3}
    doc = document(
        *[
            object_event(epcList=[f"urn:epc:id:sgtin:4012345.011111.{name}"], **{"ex:reading": v})
            for name, v in readings.items()
        ],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    params = {"orderBy": "ex:reading", "orderDirection": direction, "eventType": "ObjectEvent"}
    names = await serials_page_by_page(client, params, 2)
    assert names == sorted(readings, key=readings.__getitem__, reverse=direction == "DESC")
    # Pages of two read three (one more tells that another follows), walking two index
    # entries a chunk: the first two pages ask their three events once each; the last
    # runs out of numbers and is left to the keys.
    assert asked == [3, 3]


async def test_a_large_selection_is_asked_by_looking_each_position_up(
    client: Client, tracepoint: Tracepoint, walked_large: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each chunk asks the selection's own index which of the positions met it holds. SQLite
    # took the snapshot's bound on the position for the index's range instead and read
    # every selected row for each position asked (a carrier's events ordered by weight at
    # 300,000 events: 586 ms, now 23).
    statements: list[tuple[str, list[Any]]] = []
    fetchall = Connection.fetchall

    def recording(conn: Connection, sql: str, params: Any = ()) -> Any:
        if "EXISTS (SELECT 1" in sql:
            statements.append((sql, list(params)))
        return fetchall(conn, sql, params)

    monkeypatch.setattr(Connection, "fetchall", recording)
    doc = document(
        *[
            object_event(
                epcList=[f"urn:epc:id:sgtin:4012345.011111.{name}"],
                **{"ex:reading": index, "ex:carrier": "c1" if index % 2 else "c2"},
            )
            for index, name in enumerate(["a", "b", "c", "d", "e", "f"])
        ],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    params = {"orderBy": "ex:reading", "orderDirection": "ASC", "EQ_ex:carrier": "c1"}
    assert await serials_page_by_page(client, params, 2) == ["b", "d", "f"]
    assert statements
    if tracepoint.database.dialect.name != "sqlite":
        return  # PostgreSQL plans by its statistics; the bound never competed there
    with tracepoint.database.transaction(write=False) as conn:
        for sql, sql_params in statements:
            rows = fetchall(conn, f"EXPLAIN QUERY PLAN {sql}", sql_params)
            plan = " ".join(str(row[-1]) for row in rows)
            assert "position=?" in plan, plan
