"""The extension-field query families (EPCIS 2.0 §8.2.7.1): EQ_, GT_, GE_, LT_, LE_ and
EXISTS_ on fields of the event, of ILMD, of an error declaration, of sensor data and of
readPoint/bizLocation, directly and (INNER_) nested, named by CURIE, IRI or `ns#local`."""

import re
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from projections.epcis import event_reader, field_order
from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

NS = "https://example.com/ns/"

FIRST = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-000000000001",
    action="ADD",
    readPoint={"id": "urn:epc:id:sgln:4012345.00001.0", "ex:dock": "4"},
    ilmd={"ex:lot": "L1", "ex:bestBefore": "2025-01-01T00:00:00Z", "ex:origin": {"ex:farm": "F7"}},
    sensorElementList=[
        {
            "sensorMetadata": {"time": "2024-03-01T09:00:00Z", "ex:calibrated": "yes"},
            "sensorReport": [{"type": "Temperature", "value": 4.0, "uom": "CEL", "ex:probe": "P1"}],
            "ex:batch": "S1",
        }
    ],
    **{
        "ex:temperature": 21.5,
        "ex:grade": "A",
        "ex:checked": "2024-03-02T10:00:00Z",
        "ex:grading": {"ex:grade": "B", "ex:inspector": {"ex:name": "Ann"}},
    },
)
SECOND = object_event(
    eventID="urn:uuid:00000000-0000-4000-8000-000000000002",
    action="ADD",
    ilmd={"ex:lot": "L2", "ex:bestBefore": "2026-01-01T00:00:00Z"},
    errorDeclaration={"declarationTime": "2024-03-05T10:00:00Z", "ex:ticket": "T-9"},
    **{"ex:temperature": 30, "ex:grade": "B"},
)


@pytest.fixture
async def stored(client: Client) -> None:
    response = await capture(client, document(FIRST, SECOND, context=[CONTEXT, {"ex": NS}]))
    assert response.status == 201, await response.text()


async def found(client: Client, **params: str) -> list[str]:
    return [e["eventID"][-1] for e in await events(client, **params)]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"EQ_ex:grade": "A"}, ["1"]),
        ({"EQ_ex:grade": "A|B"}, ["1", "2"]),
        ({f"EQ_{NS}grade": "B"}, ["2"]),
        ({"EQ_https://example.com/ns/#grade": "B"}, ["2"]),
        ({"GT_ex:temperature": "25"}, ["2"]),
        ({"LE_ex:temperature": "21.5"}, ["1"]),
        ({"EQ_ex:temperature": "30"}, ["2"]),
        ({"GE_ex:checked": "2024-03-02T11:00:00+02:00"}, ["1"]),
        ({"EXISTS_ex:checked": ""}, ["1"]),
        ({"EQ_INNER_ex:grade": "B"}, ["1"]),
        ({"EQ_INNER_ex:name": "Ann"}, ["1"]),
        ({"EQ_ILMD_ex:lot": "L2"}, ["2"]),
        ({"LT_ILMD_ex:bestBefore": "2025-06-01T00:00:00Z"}, ["1"]),
        ({"EQ_INNER_ILMD_ex:farm": "F7"}, ["1"]),
        ({"EQ_ERROR_DECLARATION_ex:ticket": "T-9"}, ["2"]),
        ({"EQ_SENSORELEMENT_ex:batch": "S1"}, ["1"]),
        ({"EQ_SENSORMETADATA_ex:calibrated": "yes"}, ["1"]),
        ({"EQ_SENSORREPORT_ex:probe": "P1"}, ["1"]),
        ({"EXISTS_SENSORREPORT_ex:probe": ""}, ["1"]),
        ({"EQ_readPoint_ex:dock": "4"}, ["1"]),
    ],
)
async def test_a_field_parameter_selects_the_events_whose_field_matches(
    client: Client, stored: None, params: dict[str, str], expected: list[str]
) -> None:
    assert await found(client, **params) == expected


async def test_a_nested_field_is_found_only_by_the_inner_form(client: Client, stored: None) -> None:
    assert await found(client, **{"EQ_ex:name": "Ann"}) == []


async def test_field_parameters_combine_with_and(client: Client, stored: None) -> None:
    assert await found(client, **{"EQ_ILMD_ex:lot": "L1|L2", "GT_ex:temperature": "25"}) == ["2"]


async def test_a_field_parameter_by_a_prefix_the_query_binds(client: Client, stored: None) -> None:
    response = await client.get(
        "/v2/epcis/events",
        params={"EQ_my:grade": "A"},
        headers={**AUTH, "GS1-Extensions": f"my={NS}"},
    )
    body = await response.json()
    assert len(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == 1


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"GT_ex:grade": "high"}, "compares numbers and date-times"),
        ({"GE_ex:temperature": "1|2"}, "exactly one value"),
        ({"EQ_ex:grade": ""}, "has no value"),
    ],
)
async def test_a_bad_field_parameter_is_a_400(
    client: Client, stored: None, params: dict[str, str], fragment: str
) -> None:
    response = await client.get("/v2/epcis/events", params=params, headers=AUTH)
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:QueryParameterException"
    assert fragment in body["detail"]


async def test_a_named_query_takes_field_parameters(client: Client, stored: None) -> None:
    response = await client.post(
        "/v2/epcis/queries",
        json={"name": "lot-l1", "query": {"EQ_ILMD_ex:lot": ["L1"], "@context": {"ex": NS}}},
        headers=AUTH,
    )
    assert response.status == 201, await response.text()
    answer = await client.get("/v2/epcis/queries/lot-l1/events", headers=AUTH)
    body = await answer.json()
    assert [
        e["eventID"][-1] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ] == ["1"]


async def test_pages_of_a_field_query_hold_each_match_once_in_log_order(client: Client) -> None:
    graded = [object_event(**{"ex:grade": "A"}) for _ in range(5)]
    other = object_event(**{"ex:grade": "C"})
    response = await capture(
        client, document(*graded[:3], other, *graded[3:], context=[CONTEXT, {"ex": NS}])
    )
    assert response.status == 201
    seen: list[str] = []
    params = {"EQ_ex:grade": "A", "perPage": "2"}
    while True:
        answer = await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
        body = await answer.json()
        seen.extend(
            e["epcList"][0] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        )
        link = answer.headers.get("Link")
        if link is None:
            break
        params["nextPageToken"] = link[link.index("nextPageToken=") + 14 : link.index(">")]
    assert seen == [e["epcList"][0] for e in graded]


async def test_order_by_an_extension_field_sorts_by_its_number(client: Client) -> None:
    temperatures = [12, 3.5, 40, 7]
    doc = document(
        *[object_event(**{"ex:temperature": t}) for t in temperatures],
        object_event(),
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    seen: list[Any] = []
    params = {"orderBy": "ex:temperature", "orderDirection": "ASC", "perPage": "2"}
    while True:
        answer = await client.get("/v2/epcis/events", params=params, headers=AUTH)
        assert answer.status == 200, await answer.text()
        body = await answer.json()
        page = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        seen.extend(e.get("ex:temperature") for e in page)
        link = answer.headers.get("Link")
        if link is None:
            break
        params["nextPageToken"] = link[link.index("nextPageToken=") + 14 : link.index(">")]
    # The event without the field comes after every value.
    assert seen == [3.5, 7, 12, 40, None]


async def test_order_by_a_field_no_event_holds_lists_every_event_in_log_order_as_asked(
    client: Client,
) -> None:
    doc = document(object_event(eventID="urn:uuid:o1"), object_event(eventID="urn:uuid:o2"))
    assert (await capture(client, doc)).status == 201
    found = await events(client, orderBy=f"{NS}unheld", orderDirection="DESC")
    assert [e["eventID"] for e in found] == ["urn:uuid:o2", "urn:uuid:o1"]


async def test_an_ilmd_field_is_told_from_an_extension_field_of_its_name(client: Client) -> None:
    ilmd = object_event(action="ADD", ilmd={"ex:lot": "L1"}, eventID="urn:uuid:i1")
    top = object_event(**{"ex:lot": "L1"}, eventID="urn:uuid:t1")
    assert (await capture(client, document(ilmd, top, context=[CONTEXT, {"ex": NS}]))).status == 201
    found = await events(client, **{f"EQ_ILMD_{NS}lot": "L1"})
    assert [e["eventID"] for e in found] == ["urn:uuid:i1"]
    found = await events(client, **{f"EQ_{NS}lot": "L1"})
    assert [e["eventID"] for e in found] == ["urn:uuid:t1"]


async def test_order_by_a_field_of_several_values_sorts_by_the_least_and_text_last(
    client: Client,
) -> None:
    doc = document(
        object_event(**{"ex:temperature": 10}),
        object_event(**{"ex:temperature": [30, 2]}),
        object_event(**{"ex:temperature": "warm"}),
        object_event(**{"ex:temperature": 5}),
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    found = await events(client, orderBy="ex:temperature", orderDirection="ASC")
    assert [e["ex:temperature"] for e in found] == [[30, 2], 5, 10, "warm"]


#: A field's values by event, in capture order, and the order they sort in (the
#: standard: Int, Float, Time or String fields, strings by code point). An event's key is
#: its least number or instant (a time is a large number), else its least text: numbers
#: and instants, then texts, ties in capture order; events without a key after them, in
#: either direction (the standard lets them be anywhere).
MIXED = [
    ("n1", 7),
    ("t1", "2024-03-02T10:00:00Z"),
    ("x1", None),
    ("n2", [2, 2]),
    ("n3", 7),
    ("s1", "warm"),
    ("t2", ["2024-03-01T10:00:00Z", 9]),
    ("n4", -1.5),
    ("x2", None),
    ("t3", "2024-03-01T10:00:00+02:00"),
    ("n5", [30, 7]),
    ("s2", ["pear", "apple"]),
    ("s3", "Zebra"),
    ("s4", ["banana", 3]),
    ("s5", "apple"),
    ("x3", {"ex:inner": 1}),
]
MIXED_KEYED_ASC = [
    *("n4", "n2", "s4", "n1", "n3", "n5", "t2"),
    *("t3", "t1"),
    *("s3", "s2", "s5", "s1"),
]
MIXED_KEYLESS = ["x1", "x2", "x3"]


#: How a page ordered by a field is read: walking the field's values (every event, or a
#: filter selecting more than `DRIVEN_LIMIT`), or by each selected event's key.
READINGS = {
    "walk": ({}, None),
    "walk with a filter": ({"eventType": "ObjectEvent"}, 0),
    "each event's key": ({"eventType": "ObjectEvent"}, None),
    "each event's key, selected by a field": ({f"EQ_{NS}batch": "b1"}, None),
}


#: Every page size for the walk; for the other readings, a page of one (a cursor at every
#: event), one that ends inside a kind of key, and one page for all.
PAGINGS = [
    *[("walk", per_page) for per_page in (1, 2, 3, 5, 20)],
    *[(reading, per_page) for reading in list(READINGS)[1:] for per_page in (1, 3, 20)],
]


async def serials_page_by_page(client: Client, params: dict[str, str], per_page: int) -> list[str]:
    """The serials of the first EPC of the events `params` select, following every page of
    `per_page` events."""
    params = {**params, "perPage": str(per_page)}
    seen: list[str] = []
    while True:
        answer = await client.get("/v2/epcis/events", params=params, headers=AUTH)
        assert answer.status == 200, await answer.text()
        body = await answer.json()
        page = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        assert len(page) <= per_page
        # The serial is the name, whether the EPC is written as a URN or a Digital Link.
        seen.extend(re.split(r"[./]", e["epcList"][0])[-1] for e in page)
        link = answer.headers.get("Link")
        if link is None:
            return seen
        params["nextPageToken"] = link[link.index("nextPageToken=") + 14 : link.index(">")]


@pytest.mark.parametrize(("reading", "per_page"), PAGINGS)
@pytest.mark.parametrize("direction", ["ASC", "DESC"])
async def test_pages_ordered_by_a_field_hold_every_event_once_in_order(
    client: Client,
    direction: str,
    per_page: int,
    reading: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    selecting, bound = READINGS[reading]
    if bound is not None:
        monkeypatch.setattr(event_reader, "DRIVEN_LIMIT", bound)
    doc = document(
        *[
            object_event(epcList=[f"urn:epc:id:sgtin:4012345.011111.{name}"], **{"ex:batch": "b1"})
            if value is None
            else object_event(
                epcList=[f"urn:epc:id:sgtin:4012345.011111.{name}"],
                **{"ex:reading": value, "ex:batch": "b1"},
            )
            for name, value in MIXED
        ],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    params = {"orderBy": "ex:reading", "orderDirection": direction, **selecting}
    seen = await serials_page_by_page(client, params, per_page)
    # Ties keep the log order in either direction: reversed, they reverse too.
    if direction == "ASC":
        assert seen == MIXED_KEYED_ASC + MIXED_KEYLESS
    else:
        assert seen == MIXED_KEYED_ASC[::-1] + MIXED_KEYLESS[::-1]


async def test_order_by_a_field_counts_only_the_events_a_query_selects(client: Client) -> None:
    doc = document(
        *[
            object_event(bizStep=step, **{"ex:reading": value})
            for step, value in [("shipping", 3), ("receiving", 1), ("shipping", 2)]
        ],
        object_event(bizStep="shipping"),
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    found = await events(client, orderBy="ex:reading", orderDirection="DESC", EQ_bizStep="shipping")
    assert [e.get("ex:reading") for e in found] == [3, 2, None]


async def test_order_by_an_extension_time_descending(client: Client) -> None:
    times = ["2024-03-02T10:00:00Z", "2024-03-01T10:00:00+02:00", "2024-03-03T00:00:00Z"]
    doc = document(
        *[object_event(**{"ex:checked": t}) for t in times], context=[CONTEXT, {"ex": NS}]
    )
    assert (await capture(client, doc)).status == 201
    found = await events(client, orderBy=f"{NS}checked")
    assert [e["ex:checked"] for e in found] == [times[2], times[0], times[1]]


async def test_order_by_something_that_is_no_field_is_a_400(client: Client) -> None:
    response = await client.get("/v2/epcis/events", params={"orderBy": "bizStep"}, headers=AUTH)
    assert response.status == 400
    assert "extension field" in (await response.json())["detail"]


async def test_a_selective_query_reads_each_selected_event_s_key_and_a_broad_one_walks(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a selective filter, walking the field's values in order meets few selected
    # events: PostgreSQL then hashes every value of the field instead.
    doc = document(
        *[
            object_event(bizStep=step, **{"ex:reading": v})
            for step, v in (("shipping", 3), ("receiving", 1))
        ],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    read: list[str] = []
    for name in ("driven_page", "field_order_stages"):
        page = getattr(event_reader, name)

        def noted(*args: Any, page: Any = page, name: str = name, **kwargs: Any) -> Any:
            read.append(name)
            return page(*args, **kwargs)

        monkeypatch.setattr(event_reader, name, noted)
    monkeypatch.setattr(event_reader, "DRIVEN_LIMIT", 1)
    for selecting, way in (({"EQ_bizStep": "shipping"}, "driven_page"), ({}, "field_order_stages")):
        read.clear()
        found = await events(client, orderBy="ex:reading", orderDirection="DESC", **selecting)
        assert read == [way]
        assert [e["ex:reading"] for e in found] == ([3] if selecting else [3, 1])
    read.clear()
    found = await events(
        client, orderBy="ex:reading", orderDirection="DESC", eventType="ObjectEvent"
    )
    assert read == ["field_order_stages"]  # two events selected, one more than the bound
    assert [e["ex:reading"] for e in found] == [3, 1]


async def test_a_page_filled_by_values_does_not_look_for_events_without_one(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Finding the events without the field walks every event the query selects: a page
    # that values fill must not pay for it.
    doc = document(
        object_event(),
        *[object_event(**{"ex:reading": value}) for value in (3, 1, 2)],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201

    def refused(*_: Any, **__: Any) -> Any:
        raise AssertionError("looked for events without the field")

    monkeypatch.setattr(field_order._Stage, "_keyless", refused)
    for direction, values in (("ASC", [1, 2]), ("DESC", [3, 2])):
        params = {"orderBy": "ex:reading", "orderDirection": direction, "perPage": "2"}
        answer = await client.get("/v2/epcis/events", params=params, headers=AUTH)
        assert answer.status == 200, await answer.text()
        page = (await answer.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        assert [e["ex:reading"] for e in page] == values


async def test_ordering_by_a_field_walks_only_the_kinds_of_value_it_has(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A walk of a kind the field has no value of would test every selected event.
    doc = document(
        *[object_event(**{"ex:reading": v, "ex:code": c}) for v, c in ((3, "b"), (1, "a"))],
        context=[CONTEXT, {"ex": NS}],
    )
    assert (await capture(client, doc)).status == 201
    walked: list[str] = []
    for name in ("_numbers", "_texts"):
        walk = getattr(field_order._Stage, name)

        def noted(self: Any, resuming: bool, walk: Any = walk, name: str = name) -> Any:
            walked.append(name)
            return walk(self, resuming)

        monkeypatch.setattr(field_order._Stage, name, noted)
    for field, direction, first in (("ex:reading", "DESC", 3), ("ex:code", "ASC", "a")):
        walked.clear()
        params = {"orderBy": field, "orderDirection": direction, "perPage": "1"}
        answer = await client.get("/v2/epcis/events", params=params, headers=AUTH)
        assert answer.status == 200, await answer.text()
        page = (await answer.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        assert page[0][field] == first
        assert walked == (["_numbers"] if field == "ex:reading" else ["_texts"])
