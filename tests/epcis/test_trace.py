"""`GET /trace`: the lineage of an item from the lineage tables (issue 19)."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from infrastructure.connection import Connection
from projections.epcis import events
from projections.epcis.event_keys import event_keys
from projections.epcis.lineage_reader import LineageReader
from tests.access.helpers import call, code, user_with
from tests.epcis.documents import aggregation_event, document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]

ITEM_1 = "urn:epc:id:sgtin:4012345.011111.1001"
ITEM_2 = "urn:epc:id:sgtin:4012345.011111.1002"
LOT = "urn:epc:class:lgtin:4012345.011111.L1"
CASE = "urn:epc:id:sscc:4012345.0000000001"
PALLET = "urn:epc:id:sscc:4012345.0000000002"
SENSOR = "urn:epc:id:giai:4012345.SENSOR7"
JUICE = "urn:epc:class:lgtin:4012345.022222.P1"
CUP = "urn:epc:id:sgtin:4012345.022222.9"
#: Before the pallet was unpacked, and after.
PACKED = "2024-03-01T11:30:00Z"
UNPACKED = "2024-03-01T12:30:00Z"


def transformation(time: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "TransformationEvent",
        "eventTime": time,
        "eventTimeZoneOffset": "+00:00",
        "bizStep": "commissioning",
        **fields,
    }


def chain() -> list[dict[str, Any]]:
    """A lot commissioned, packed into a case, the case onto a pallet with a sensor, the
    pallet shipped then unpacked; one item of the lot pressed into juice in two events."""
    return [
        object_event(
            eventTime="2024-03-01T08:00:00Z",
            eventTimeZoneOffset="+00:00",
            action="ADD",
            bizStep="commissioning",
            disposition="active",
            epcList=[ITEM_1, ITEM_2],
            ilmd={"cbvmda:lotNumber": "L1"},
        ),
        aggregation_event(CASE, [ITEM_1, ITEM_2], eventTime="2024-03-01T09:00:00Z"),
        aggregation_event(PALLET, [CASE], eventTime="2024-03-01T10:00:00Z", bizStep="loading"),
        {
            "type": "AssociationEvent",
            "eventTime": "2024-03-01T10:05:00Z",
            "eventTimeZoneOffset": "+00:00",
            "parentID": PALLET,
            "childEPCs": [SENSOR],
            "action": "ADD",
            "bizStep": "assembling",
        },
        object_event(
            eventTime="2024-03-01T11:00:00Z",
            eventTimeZoneOffset="+00:00",
            epcList=[PALLET],
            bizStep="shipping",
            disposition="in_transit",
        ),
        aggregation_event(
            PALLET,
            [CASE],
            eventTime="2024-03-01T12:00:00Z",
            action="DELETE",
            bizStep="unpacking",
        ),
        transformation(
            "2024-03-01T13:00:00Z", inputEPCList=[ITEM_1], transformationID="urn:uuid:press-1"
        ),
        transformation(
            "2024-03-01T14:00:00Z",
            outputQuantityList=[{"epcClass": JUICE, "quantity": 2, "uom": "LTR"}],
            outputEPCList=[CUP],
            transformationID="urn:uuid:press-1",
        ),
    ]


@pytest.fixture
async def traced(client: Client) -> Client:
    response = await capture(client, document(*chain()))
    assert response.status == 201, await response.text()
    return client


async def trace(client: Client, token: str | None = None, **params: str) -> dict[str, Any]:
    status, body = await call(client, "GET", "/trace", token=token, params=params)
    assert status == 200, body
    return dict(body["data"])


def edges(answer: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["from"], e["relation"], e["to"]) for e in answer["edges"]}


def node(answer: dict[str, Any], id: str) -> dict[str, Any]:
    return next(n for n in answer["nodes"] if n["id"] == id)


async def test_downstream_follows_an_item_into_its_case_and_pallet(traced: Client) -> None:
    answer = await trace(traced, epc=ITEM_1, direction="downstream", at=PACKED)
    assert answer["root"] == ITEM_1
    assert edges(answer) == {
        (ITEM_1, "contained_in", CASE),
        (CASE, "contained_in", PALLET),
    }


async def test_an_edge_names_its_event_and_when_a_later_delete_ended_it(traced: Client) -> None:
    answer = await trace(traced, epc=CASE, direction="downstream", at=PACKED)
    (edge,) = answer["edges"]
    assert edge["eventTime"] == "2024-03-01T10:00:00.000Z"
    assert edge["until"] == "2024-03-01T12:00:00.000Z"
    assert edge["eventID"].startswith("ni:///sha-256;")


async def test_containment_ended_by_a_delete_is_gone_after_it(traced: Client) -> None:
    answer = await trace(traced, epc=ITEM_1, direction="downstream", at=UNPACKED)
    assert edges(answer) == {(ITEM_1, "contained_in", CASE)}
    assert (await trace(traced, epc=CASE, direction="downstream"))["edges"] == []


async def test_nothing_holds_before_it_happened(traced: Client) -> None:
    answer = await trace(traced, epc=ITEM_1, at="2024-03-01T08:30:00Z")
    assert {e["relation"] for e in answer["edges"]} == {"member_of"}


async def test_upstream_finds_what_went_into_a_pallet_and_the_items_lot(traced: Client) -> None:
    answer = await trace(traced, epc=PALLET, direction="upstream", at=PACKED)
    assert edges(answer) == {
        (CASE, "contained_in", PALLET),
        (SENSOR, "associated_with", PALLET),
        (ITEM_1, "contained_in", CASE),
        (ITEM_2, "contained_in", CASE),
        (ITEM_1, "member_of", LOT),
        (ITEM_2, "member_of", LOT),
    }
    assert node(answer, LOT)["kind"] == "class"
    assert node(answer, ITEM_1)["kind"] == "instance"


async def test_a_lot_downstream_reaches_its_items_and_where_they_went(traced: Client) -> None:
    answer = await trace(traced, epc=LOT, direction="downstream", at="2024-03-01T15:00:00Z")
    assert edges(answer) == {
        (ITEM_1, "member_of", LOT),
        (ITEM_2, "member_of", LOT),
        (ITEM_1, "contained_in", CASE),
        (ITEM_2, "contained_in", CASE),
        (ITEM_1, "transformed_into", JUICE),
        (ITEM_1, "transformed_into", CUP),
    }
    recall = await trace(traced, epc=LOT, direction="downstream", at=PACKED)
    assert (CASE, "contained_in", PALLET) in edges(recall)
    assert {n["id"] for n in recall["nodes"]} == {LOT, ITEM_1, ITEM_2, CASE, PALLET}


async def test_a_transformation_id_joins_inputs_and_outputs_of_two_events(traced: Client) -> None:
    answer = await trace(traced, epc=JUICE, direction="upstream")
    assert edges(answer) == {(ITEM_1, "transformed_into", JUICE), (ITEM_1, "member_of", LOT)}
    (made,) = [e for e in answer["edges"] if e["relation"] == "transformed_into"]
    assert made["eventTime"] == "2024-03-01T14:00:00.000Z"
    assert made["until"] is None


async def test_depth_bounds_the_hops(traced: Client) -> None:
    answer = await trace(traced, epc=ITEM_1, direction="downstream", at=PACKED, depth="1")
    assert edges(answer) == {(ITEM_1, "contained_in", CASE)}
    assert (await trace(traced, epc=ITEM_1, depth="0"))["edges"] == []


async def test_both_directions_join_upstream_and_downstream(traced: Client) -> None:
    answer = await trace(traced, epc=CASE, at=PACKED, depth="1")
    assert edges(answer) == {
        (CASE, "contained_in", PALLET),
        (ITEM_1, "contained_in", CASE),
        (ITEM_2, "contained_in", CASE),
    }


async def test_a_node_carries_its_latest_state_and_its_parent(traced: Client) -> None:
    answer = await trace(traced, epc=CASE, at=PACKED)
    pallet = node(answer, PALLET)
    assert pallet["eventTime"] == "2024-03-01T11:00:00.000Z"
    assert pallet["bizStep"] == "shipping"
    assert pallet["disposition"] == "in_transit"
    assert pallet["readPoint"] == "urn:epc:id:sgln:4012345.00001.0"
    assert pallet["digital_link"].endswith("/00/040123450000000023")
    assert node(answer, CASE)["parent"] == PALLET
    assert node(answer, ITEM_1)["parent"] == CASE
    assert pallet["parent"] is None


async def test_a_digital_link_asks_for_the_same_trace(traced: Client) -> None:
    by_urn = await trace(traced, epc=ITEM_1, at=PACKED)
    by_link = await trace(traced, epc="https://example.com/01/04012345111118/21/1001", at=PACKED)
    assert by_link == by_urn


async def test_an_edge_from_an_event_the_caller_may_not_read_is_not_there(
    traced: Client,
) -> None:
    partner = await user_with(
        traced,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_in": ["commissioning", "packing"]}},
        },
    )
    answer = await trace(traced, partner.token, epc=ITEM_1, direction="downstream", at=PACKED)
    assert edges(answer) == {(ITEM_1, "contained_in", CASE)}
    # The shipping event is not the partner's to read: the case's state is its packing.
    assert node(answer, CASE)["bizStep"] == "packing"


async def test_a_caller_who_may_not_read_events_is_forbidden(traced: Client) -> None:
    nobody = await user_with(traced)
    status, body = await call(traced, "GET", "/trace", token=nobody.token, params={"epc": CASE})
    assert status == 403
    assert code(body) == "FORBIDDEN"


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"epc": "not an epc"},
        {"epc": "urn:epc:id:sgtin:garbage"},
        {"epc": "https://example.com/nothing"},
        {"epc": CASE, "direction": "sideways"},
        {"epc": CASE, "depth": "-1"},
        {"epc": CASE, "depth": "51"},
        {"epc": CASE, "depth": "two"},
        {"epc": CASE, "at": "yesterday"},
        {"epc": CASE, "at": "2024-03-01T10:00:00"},
    ],
)
async def test_bad_parameters_are_an_invalid_query(client: Client, params: dict[str, str]) -> None:
    status, body = await call(client, "GET", "/trace", params=params)
    assert status == 400, body
    assert code(body) == "INVALID_QUERY"


async def test_a_delete_captured_before_its_add_still_ends_it(client: Client) -> None:
    unpack = aggregation_event(PALLET, [CASE], eventTime="2024-03-01T12:00:00Z", action="DELETE")
    await capture(client, document(unpack))
    await capture(client, document(aggregation_event(PALLET, [CASE])))
    packed = await trace(client, epc=CASE, at="2024-03-01T11:30:00Z")
    assert [e["until"] for e in packed["edges"]] == ["2024-03-01T12:00:00.000Z"]
    assert (await trace(client, epc=CASE))["edges"] == []


async def test_a_delete_without_children_ends_every_child(client: Client) -> None:
    await capture(client, document(aggregation_event(PALLET, [CASE, ITEM_1])))
    unpack = aggregation_event(
        PALLET, [], eventTime="2024-03-01T12:00:00Z", action="DELETE", childEPCs=None
    )
    await capture(client, document(unpack))
    answer = await trace(client, epc=PALLET, direction="upstream", at="2024-03-01T11:30:00Z")
    assert {e["until"] for e in answer["edges"]} == {"2024-03-01T12:00:00.000Z"}
    assert (await trace(client, epc=PALLET, direction="upstream"))["edges"] == []


async def test_a_replay_rebuilds_the_same_answers(traced: Client, tracepoint: Tracepoint) -> None:
    asked = [
        {"epc": LOT, "direction": "downstream", "at": PACKED},
        {"epc": PALLET, "direction": "upstream", "at": PACKED},
        {"epc": ITEM_1},
    ]
    before = [await trace(traced, **params) for params in asked]
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert [await trace(traced, **params) for params in asked] == before


async def test_a_delete_the_caller_may_not_read_does_not_end_the_edge_for_it(
    traced: Client,
) -> None:
    partner = await user_with(
        traced,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_in": ["packing", "loading"]}},
        },
    )
    answer = await trace(traced, partner.token, epc=CASE, direction="downstream")
    assert [(e["to"], e["until"]) for e in answer["edges"]] == [(PALLET, None)]


async def test_a_digital_link_naming_a_lot_makes_its_item_a_member(client: Client) -> None:
    item = "https://example.com/01/04012345111118/10/L7/21/77"
    await capture(client, document(aggregation_event(CASE, [item])))
    answer = await trace(client, epc="urn:epc:id:sgtin:4012345.011111.77", direction="upstream")
    assert edges(answer) == {
        ("urn:epc:id:sgtin:4012345.011111.77", "member_of", "urn:epc:class:lgtin:4012345.011111.L7")
    }


async def test_the_node_cap_cuts_the_walk_short_and_says_so(
    traced: Client, tracepoint: Tracepoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tracepoint.epcis.lineage, "_max_nodes", 3)
    answer = await trace(traced, epc=LOT, direction="downstream", at=PACKED)
    assert len(answer["nodes"]) == 3
    assert answer["truncated"] is True


async def test_a_transformation_without_id_joins_its_own_inputs_and_outputs(
    client: Client,
) -> None:
    pressed = transformation("2024-03-01T13:00:00Z", inputEPCList=[ITEM_2], outputEPCList=[CUP])
    other = transformation("2024-03-01T13:00:00Z", inputEPCList=[ITEM_1], outputEPCList=[CASE])
    await capture(client, document(pressed, other))
    answer = await trace(client, epc=ITEM_2, direction="downstream")
    assert edges(answer) == {(ITEM_2, "transformed_into", CUP)}


async def test_an_event_retracted_by_an_error_declaration_makes_no_edge(client: Client) -> None:
    packed = aggregation_event(
        PALLET, [CASE], eventID="urn:uuid:00000000-0000-4000-8000-0000000000a1"
    )
    await capture(client, document(packed))
    assert len((await trace(client, epc=CASE))["edges"]) == 1
    declared = {**packed, "errorDeclaration": {"declarationTime": "2024-03-02T00:00:00Z"}}
    await capture(client, document(declared))
    answer = await trace(client, epc=CASE)
    assert answer["edges"] == []
    assert node(answer, CASE)["eventTime"] is None


async def test_an_edge_names_the_id_its_event_was_captured_with(client: Client) -> None:
    packed = aggregation_event(PALLET, [CASE], eventID="urn:uuid:00000000-0000-4000-8000-0000a1")
    await capture(client, document(packed))
    (edge,) = (await trace(client, epc=CASE))["edges"]
    assert edge["eventID"] == "urn:uuid:00000000-0000-4000-8000-0000a1"


async def test_a_declaration_retracts_only_its_own_id_among_ids_of_one_key(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every ID's key is 7; the check (the hash's other 64 bits) tells them apart.
    monkeypatch.setattr(events, "event_keys", lambda event_id: (7, event_keys(event_id)[1]))
    kept = aggregation_event(PALLET, [CASE], eventID="urn:uuid:00000000-0000-4000-8000-0000b1")
    other = aggregation_event(PALLET, [ITEM_1], eventID="urn:uuid:00000000-0000-4000-8000-0000b2")
    declared = {**other, "errorDeclaration": {"declarationTime": "2024-03-02T00:00:00Z"}}
    await capture(client, document(kept, other))
    await capture(client, document(declared))
    assert edges(await trace(client, epc=PALLET, direction="upstream")) == {
        (CASE, "contained_in", PALLET)
    }


async def test_a_class_packed_by_quantity_is_in_its_parent_both_ways(client: Client) -> None:
    juice = [{"epcClass": JUICE, "quantity": 2, "uom": "LTR"}]
    await capture(client, document(aggregation_event(PALLET, [CASE], childQuantityList=juice)))
    assert edges(await trace(client, epc=JUICE, direction="downstream")) == {
        (JUICE, "contained_in", PALLET)
    }
    assert edges(await trace(client, epc=PALLET, direction="upstream")) == {
        (JUICE, "contained_in", PALLET),
        (CASE, "contained_in", PALLET),
    }


async def test_a_child_spelled_as_a_digital_link_takes_the_prefix_of_a_urn_beside_it(
    client: Client,
) -> None:
    # The item's company (5412345) is named by its event alone: by the URN of another
    # child, which the trace does not reach.
    child = "https://id.gs1.org/01/05412345000013/21/9"
    sibling = "urn:epc:id:sgtin:5412345.000001.8"
    await capture(client, document(aggregation_event(PALLET, [child, sibling])))
    answer = await trace(client, epc=child, direction="downstream")
    assert edges(answer) == {("urn:epc:id:sgtin:5412345.000001.9", "contained_in", PALLET)}


async def test_an_observed_aggregation_holds_its_children_and_a_delete_holds_none(
    client: Client,
) -> None:
    await capture(client, document(aggregation_event(PALLET, [CASE], action="OBSERVE")))
    await capture(client, document(aggregation_event(CASE, [ITEM_1], action="DELETE")))
    assert edges(await trace(client, epc=CASE)) == {(CASE, "contained_in", PALLET)}


async def test_a_traces_statements_keep_their_generic_plans_on_postgresql(
    tracepoint: Tracepoint,
) -> None:
    # Planning a hop's statement took several times as long as running it.
    if tracepoint.database.dialect.name != "postgresql":
        pytest.skip("SQLite has no plan cache to choose from")
    with LineageReader(tracepoint.database).reading() as conn:
        assert conn.fetchval("SHOW plan_cache_mode") == "force_generic_plan"
    with tracepoint.database.reading() as conn:
        assert conn.fetchval("SHOW plan_cache_mode") == "auto"


async def test_a_trace_reads_which_terms_mean_containment_once(
    traced: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    fetchall = Connection.fetchall

    def recording(conn: Connection, sql: str, params: Any = ()) -> Any:
        if "AggregationEvent" in str(params):
            asked.append(sql)
        return fetchall(conn, sql, params)

    monkeypatch.setattr(Connection, "fetchall", recording)
    answer = await trace(traced, epc=ITEM_1, direction="downstream", at=PACKED, depth="3")
    assert (ITEM_1, "contained_in", CASE) in edges(answer)
    assert len(asked) == 1, asked
