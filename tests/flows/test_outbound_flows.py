"""Outbound flows push what their named query selects to a partner, from a cursor that
moves only when the partner accepted, and lose nothing on the way."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.access.helpers import Client, call, ok, user_with
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import aggregation_event, object_event
from tests.epcis.test_returned_meaning import (
    assert_same_statements,
    capture_all,
    clashing_documents,
)
from tests.flows.helpers import capture, flow_now, flow_to, run
from tests.flows.partner import Partner, running_partner

SHIPPING = {"EQ_bizStep": ["shipping"]}


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Documents of at most two events, so a few events make several."""
    return make_settings(database_url, flow_batch_size=2)


@pytest.fixture
async def partner() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


async def stored_ids(client: Client) -> list[str]:
    response = await client.get(
        "/v2/epcis/events", params={"EQ_bizStep": "shipping", "perPage": "100"}, headers=AUTH
    )
    body = await response.json()
    return [e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]]


async def test_a_flow_sends_the_selected_events_in_batches_and_moves_its_cursor(
    client: Client, partner: Partner
) -> None:
    await capture(client, *(object_event() for _ in range(5)), object_event(bizStep="receiving"))
    flow = await flow_to(client, partner.url, SHIPPING)
    done = await run(client, flow)
    assert (done["outcome"], done["sent"], done["documents"]) == ("sent", 5, 3)
    assert [len(d["epcisBody"]["eventList"]) for d in partner.documents] == [2, 2, 1]
    assert {e["bizStep"] for e in partner.events} == {"shipping"}
    state = await flow_now(client, flow)
    assert (state["status"], state["backlog"], state["last_error"]) == ("idle", 0, None)
    assert state["last_position"] == done["last_position"] > 0
    assert state["max_record_time_processed"] is not None
    assert partner.documents[0]["type"] == "EPCISDocument"


async def test_a_flow_sends_events_as_captured_not_in_the_default_epc_format(
    client: Client, partner: Partner
) -> None:
    sent = object_event(
        epcList=["urn:epc:id:sgtin:4012345.011111.8001"],
        readPoint={"id": "urn:epc:id:sgln:4012345.00001.0"},
    )
    await capture(client, sent)
    await run(client, await flow_to(client, partner.url, SHIPPING))
    [event] = partner.events
    assert (event["epcList"], event["readPoint"]) == (sent["epcList"], sent["readPoint"])


async def test_a_declaration_reaches_the_partner_who_had_the_event(
    client: Client, partner: Partner
) -> None:
    event = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d3")
    await capture(client, event)
    flow = await flow_to(client, partner.url, SHIPPING)
    await run(client, flow)
    declaration = {"declarationTime": "2024-03-05T10:00:00Z", "reason": "did_not_occur"}
    await capture(client, {**event, "errorDeclaration": declaration})
    done = await run(client, flow)
    assert done["sent"] == 1
    await run(client, flow)
    assert [e.get("errorDeclaration") for e in partner.events] == [None, declaration]
    assert {e["eventID"] for e in partner.events} == {event["eventID"]}


async def test_events_captured_under_clashing_prefixes_are_sent_with_their_iris(
    client: Client, partner: Partner
) -> None:
    documents = clashing_documents()
    await capture_all(client, documents)
    await run(client, await flow_to(client, partner.url, {"eventType": ["ObjectEvent"]}))
    [sent] = partner.documents
    assert_same_statements(documents, sent)


async def test_a_run_with_nothing_new_sends_nothing(client: Client, partner: Partner) -> None:
    await capture(client, object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    await run(client, flow)
    again = await run(client, flow)
    assert (again["outcome"], again["sent"]) == ("nothing", 0)
    assert len(partner.documents) == 1


async def test_the_runs_are_listed_newest_first(client: Client, partner: Partner) -> None:
    await capture(client, *(object_event() for _ in range(3)))
    flow = await flow_to(client, partner.url, SHIPPING)
    await run(client, flow)
    runs = await ok(client, "GET", f"/items/epcis_outbound_flow/{flow['id']}/runs")
    assert [(r["outcome"], r["events"], r["http_status"]) for r in runs] == [
        ("sent", 1, 202),
        ("sent", 2, 202),
    ]
    assert runs[0]["started_at"] >= runs[1]["started_at"]
    assert runs[0]["from_position"] == runs[1]["to_position"]


async def test_packing_hierarchy_and_commissioning_events_go_with_the_batch(
    client: Client, partner: Partner
) -> None:
    epc = "urn:epc:id:sgtin:4012345.011111.777"
    commissioned = object_event(
        epcList=[epc], action="ADD", bizStep="commissioning", disposition="active"
    )
    packed = aggregation_event(
        "urn:epc:id:sscc:4012345.0000000001", [epc], action="ADD", bizStep="packing"
    )
    shipped = object_event(epcList=[epc])
    await capture(client, commissioned, packed, shipped)
    flow = await flow_to(
        client,
        partner.url,
        SHIPPING,
        send_packing_hierarchy=True,
        send_commissioning_events=True,
    )
    await run(client, flow)
    first = partner.documents[0]["epcisBody"]["eventList"]
    assert [e["type"] for e in first] == ["ObjectEvent", "AggregationEvent", "ObjectEvent"]
    assert [e.get("bizStep") for e in first] == ["commissioning", "packing", "shipping"]
    ids = [e["eventID"] for e in first]
    assert len(ids) == len(set(ids))


async def test_without_the_switches_only_the_query_decides(
    client: Client, partner: Partner
) -> None:
    epc = "urn:epc:id:sgtin:4012345.011111.778"
    await capture(
        client,
        object_event(epcList=[epc], action="ADD", bizStep="commissioning"),
        object_event(epcList=[epc]),
    )
    flow = await flow_to(client, partner.url, SHIPPING)
    await run(client, flow)
    assert [e["bizStep"] for e in partner.events] == ["shipping"]


async def test_moving_max_record_time_processed_back_replays_from_that_time(
    client: Client, partner: Partner
) -> None:
    await capture(client, object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    await run(client, flow)
    first = (await flow_now(client, flow))["max_record_time_processed"]
    await asyncio.sleep(0.01)
    await capture(client, object_event(), object_event())
    await run(client, flow)
    assert len(partner.events) == 3
    await ok(
        client,
        "PATCH",
        f"/items/epcis_outbound_flow/{flow['id']}",
        {"max_record_time_processed": first},
    )
    replayed = await run(client, flow)
    assert replayed["sent"] == 2
    assert partner.event_ids[3:] == partner.event_ids[1:3]


async def test_a_partner_outage_loses_nothing(client: Client, partner: Partner) -> None:
    await capture(client, *(object_event() for _ in range(3)))
    flow = await flow_to(client, partner.url, SHIPPING)
    partner.status = 503
    down = await run(client, flow)
    assert (down["outcome"], down["http_status"]) == ("retrying", 503)
    state = await flow_now(client, flow)
    assert (state["status"], state["last_position"]) == ("retrying", 0)
    assert "503" in state["last_error"]
    await capture(client, object_event())
    partner.status = 202
    back = await run(client, flow)
    assert back["sent"] == 4
    assert sorted(partner.event_ids) == sorted(await stored_ids(client))
    assert (await flow_now(client, flow))["status"] == "idle"


async def test_a_partner_that_does_not_answer_in_time_is_retried(
    client: Client, partner: Partner
) -> None:
    await capture(client, object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    await ok(
        client, "PATCH", f"/items/epcis_connection/{flow['connection']}", {"timeout_seconds": 1}
    )
    partner.delay = 1.5
    late = await run(client, flow)
    assert late["outcome"] == "retrying"
    assert "no answer within 1 s" in late["error"]


async def test_a_refused_connection_is_retried(client: Client) -> None:
    async with running_partner() as gone:
        url = gone.url
    await capture(client, object_event())
    flow = await flow_to(client, url, SHIPPING)
    refused = await run(client, flow)
    assert refused["outcome"] == "retrying"
    assert (await flow_now(client, flow))["last_position"] == 0


async def test_a_4xx_stops_the_flow_until_it_is_switched_on_again(
    client: Client, partner: Partner
) -> None:
    await capture(client, object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    partner.status = 422
    stopped = await run(client, flow)
    assert stopped["outcome"] == "stopped"
    state = await flow_now(client, flow)
    assert (state["active"], state["status"]) == (False, "error")
    assert "422" in state["last_error"]
    assert (await run(client, flow))["outcome"] == "inactive"
    partner.status = 202
    switched = await ok(
        client, "PATCH", f"/items/epcis_outbound_flow/{flow['id']}", {"active": True}
    )
    assert (switched["status"], switched["last_error"]) == ("idle", None)
    assert (await run(client, flow))["sent"] == 1


async def test_a_crash_between_push_and_cursor_move_resends_the_batch(
    tracepoint: Tracepoint, client: Client, partner: Partner, monkeypatch: pytest.MonkeyPatch
) -> None:
    await capture(client, object_event(), object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    flows = tracepoint.flows.outbound

    def crash(*args: Any) -> Any:
        raise RuntimeError("killed")

    monkeypatch.setattr(flows, "_advance", crash)
    interrupted = await flows.run(flow["id"])
    assert interrupted.outcome == "retrying"
    assert "killed" in str(interrupted.error)
    monkeypatch.undo()
    assert len(partner.events) == 2
    assert (await flow_now(client, flow))["last_position"] == 0
    await flows.run(flow["id"])
    assert partner.event_ids[2:] == partner.event_ids[:2]


async def test_captures_during_runs_are_all_delivered(
    tracepoint: Tracepoint, client: Client, partner: Partner
) -> None:
    flow = await flow_to(client, partner.url, SHIPPING)

    async def captures() -> None:
        for _ in range(6):
            await capture(client, object_event(), object_event())

    async def runs() -> None:
        for _ in range(6):
            await tracepoint.flows.outbound.run(flow["id"])
            await asyncio.sleep(0)

    await asyncio.gather(captures(), runs())
    await tracepoint.flows.outbound.run(flow["id"])
    assert sorted(set(partner.event_ids)) == sorted(await stored_ids(client))


async def test_running_a_flow_needs_update_permission_on_it(
    client: Client, partner: Partner
) -> None:
    flow = await flow_to(client, partner.url, SHIPPING)
    reader = await user_with(
        client, {"collection": "epcis_outbound_flow", "action": "read", "fields": ["*"]}
    )
    status, _ = await call(
        client, "POST", f"/items/epcis_outbound_flow/{flow['id']}/run", token=reader.token
    )
    assert status == 403
    runs = await ok(
        client, "GET", f"/items/epcis_outbound_flow/{flow['id']}/runs", token=reader.token
    )
    assert runs == []


async def test_a_flow_sends_only_what_its_owner_may_read(client: Client, partner: Partner) -> None:
    owner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "shipping"}},
        },
        *(
            {"collection": c, "action": a, "fields": ["*"]}
            for c in ("epcis_connection", "epcis_queries", "epcis_outbound_flow")
            for a in ("create", "read", "update")
        ),
    )
    await capture(client, object_event(), object_event(bizStep="receiving"))
    flow = await flow_to(client, partner.url, {"EQ_action": ["OBSERVE"]}, token=owner.token)
    await run(client, flow)
    assert [e["bizStep"] for e in partner.events] == ["shipping"]


async def test_the_connections_credentials_are_sent_and_never_read_back(
    client: Client, partner: Partner
) -> None:
    await capture(client, object_event())
    flow = await flow_to(client, partner.url, SHIPPING)
    connection = await ok(
        client,
        "PATCH",
        f"/items/epcis_connection/{flow['connection']}",
        {"auth_type": "bearer", "auth_secret": "s3cret", "headers": {"X-Partner": "7"}},
    )
    assert connection["auth_secret"] != "s3cret"
    await run(client, flow)
    assert partner.headers[0]["Authorization"] == "Bearer s3cret"
    assert partner.headers[0]["X-Partner"] == "7"


@pytest.mark.parametrize(
    "payload",
    [
        {"name": "x", "url": "ftp://partner"},
        {"name": "x", "url": "not a url"},
        {"name": "x", "url": "https://p.example", "auth_type": "bearer"},
        {"name": "x", "url": "https://p.example", "auth_type": "header", "auth_secret": "s"},
        {"name": "x", "url": "https://p.example", "headers": ["X"]},
        {"name": "x", "url": "https://p.example", "auth_type": "oauth"},
    ],
)
async def test_a_bad_connection_is_a_400(client: Client, payload: dict[str, Any]) -> None:
    status, _ = await call(client, "POST", "/items/epcis_connection", payload)
    assert status == 400


async def test_a_flow_without_connection_or_query_is_a_400(client: Client) -> None:
    status, body = await call(client, "POST", "/items/epcis_outbound_flow", {})
    assert status == 400
    assert "connection" in body["errors"][0]["message"]


async def test_a_named_query_in_another_order_still_delivers_everything_once(
    client: Client, partner: Partner
) -> None:
    await capture(client, *(object_event() for _ in range(5)))
    flow = await flow_to(
        client, partner.url, {"EQ_bizStep": ["shipping"], "orderBy": ["eventTime"]}
    )
    await run(client, flow)
    await run(client, flow)
    assert len(partner.event_ids) == len(set(partner.event_ids)) == 5


@pytest.mark.parametrize(
    "values",
    [
        {"headers": {"X-Bad": "a\r\nInjected: 1"}},
        {"headers": {"Bad Name": "x"}},
        {"auth_type": "header", "auth_secret": "s", "auth_header_name": "X: y"},
        {"url": "http://[::1/x"},
    ],
)
async def test_headers_that_would_break_the_request_are_a_400(
    client: Client, values: dict[str, Any]
) -> None:
    payload = {"name": "x", "url": "https://partner.example/capture", **values}
    status, _ = await call(client, "POST", "/items/epcis_connection", payload)
    assert status == 400


async def test_runs_are_read_by_their_own_fields_only(client: Client, partner: Partner) -> None:
    flow = await flow_to(client, partner.url, SHIPPING)
    status, _ = await call(
        client,
        "GET",
        f"/items/epcis_outbound_flow/{flow['id']}/runs",
        params={"fields": "flow.connection.headers"},
    )
    assert status == 400


async def test_running_an_unknown_flow_is_a_403(client: Client) -> None:
    status, _ = await call(
        client, "POST", "/items/epcis_outbound_flow/6f1c3b1e-6b9a-4c53-9b7e-0c6d1f3e2a71/run"
    )
    assert status == 403


async def test_a_flow_sends_only_what_its_last_editor_may_read(
    client: Client, partner: Partner
) -> None:
    editor = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "receiving"}},
        },
        {"collection": "epcis_outbound_flow", "action": "update", "fields": ["*"]},
        {"collection": "epcis_outbound_flow", "action": "read", "fields": ["*"]},
    )
    await capture(client, object_event(), object_event(bizStep="receiving"))
    flow = await flow_to(client, partner.url, {"EQ_action": ["OBSERVE"]})
    await ok(
        client,
        "PATCH",
        f"/items/epcis_outbound_flow/{flow['id']}",
        {"interval_seconds": 120},
        token=editor.token,
    )
    await run(client, flow)
    assert [e["bizStep"] for e in partner.events] == ["receiving"]
