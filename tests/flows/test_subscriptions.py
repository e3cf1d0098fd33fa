"""EPCIS 2.0 subscriptions: webhooks (stream and scheduled) and WebSocket streams."""

import asyncio
import hashlib
import hmac
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from aiohttp import ClientWebSocketResponse, WSMsgType

from application.operations.service_records import change_record
from application.service.runtime import Tracepoint
from domain.gs1 import canonical_epc
from infrastructure.settings import Settings
from tests.access.helpers import Client, code, ok, user_with
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import object_event
from tests.epcis.streams import listening_stream
from tests.epcis.test_returned_meaning import (
    assert_same_statements,
    capture_all,
    clashing_documents,
)
from tests.flows.helpers import capture
from tests.flows.partner import Partner, running_partner


@pytest.fixture
async def receiver() -> AsyncIterator[Partner]:
    async with running_partner() as listening:
        yield listening


def delivered(receiver: Partner) -> list[dict[str, Any]]:
    return [
        e
        for d in receiver.documents
        for e in d["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    ]


async def named_query(client: Client, name: str = "shipping", token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else AUTH
    response = await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps({"name": name, "query": {"EQ_bizStep": ["shipping"]}}),
        headers={**headers, "Content-Type": "application/json"},
    )
    assert response.status == 201, await response.text()
    return name


async def subscribe(
    client: Client,
    name: str,
    token: str | None = None,
    epc_format: str | None = None,
    **controls: Any,
) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else dict(AUTH)
    if epc_format is not None:
        headers["GS1-EPC-Format"] = epc_format
    return await client.post(
        f"/v2/epcis/queries/{name}/subscriptions",
        data=orjson.dumps(controls),
        headers={**headers, "Content-Type": "application/json"},
    )


async def test_a_subscription_is_created_listed_read_and_deleted(
    client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True)
    assert response.status == 201, await response.text()
    created = await response.json()
    key = created["subscriptionID"]
    assert response.headers["Location"] == f"/v2/epcis/queries/{name}/subscriptions/{key}"
    assert created["createdAt"]
    assert created["minRecordTime"]
    assert "signatureToken" not in created
    listed = await (
        await client.get(f"/v2/epcis/queries/{name}/subscriptions", headers=AUTH)
    ).json()
    assert [s["subscriptionID"] for s in listed] == [key]
    one = await client.get(f"/v2/epcis/subscriptions/{key}", headers=AUTH)
    assert (await one.json())["dest"] == receiver.url
    gone = await client.delete(f"/v2/epcis/queries/{name}/subscriptions/{key}", headers=AUTH)
    assert gone.status == 204
    again = await client.get(f"/v2/epcis/subscriptions/{key}", headers=AUTH)
    assert again.status == 404


async def test_a_stream_subscription_delivers_new_events_signed(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await capture(client, object_event())  # before the subscription: not delivered
    response = await subscribe(client, name, dest=receiver.url, stream=True, signatureToken="t0ken")
    key = (await response.json())["subscriptionID"]
    await capture(client, object_event(), object_event(bizStep="receiving"), object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    [document] = receiver.documents
    assert document["type"] == "EPCISQueryDocument"
    results = document["epcisBody"]["queryResults"]
    assert (results["queryName"], results["subscriptionID"]) == (name, key)
    assert [e["bizStep"] for e in delivered(receiver)] == ["shipping", "shipping"]
    await tracepoint.epcis.subscriptions.deliver_due()
    assert len(receiver.documents) == 1


async def test_a_declaration_is_delivered_once_like_any_new_event(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await subscribe(client, name, dest=receiver.url, stream=True)
    event = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d2")
    await capture(client, event)
    await tracepoint.epcis.subscriptions.deliver_due()
    declaration = {"declarationTime": "2024-03-05T10:00:00Z", "reason": "did_not_occur"}
    await capture(client, {**event, "errorDeclaration": declaration})
    await tracepoint.epcis.subscriptions.deliver_due()
    await tracepoint.epcis.subscriptions.deliver_due()
    assert len(receiver.documents) == 2
    original, retraction = delivered(receiver)
    assert original["eventID"] == retraction["eventID"] == event["eventID"]
    assert "errorDeclaration" not in original
    assert retraction["errorDeclaration"] == declaration


async def test_events_captured_under_clashing_prefixes_are_delivered_with_their_iris(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    response = await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps({"name": "objects", "query": {"eventType": ["ObjectEvent"]}}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 201, await response.text()
    await subscribe(
        client, "objects", dest=receiver.url, stream=True, epc_format="Never_Translates"
    )
    documents = clashing_documents()
    await capture_all(client, documents)
    await tracepoint.epcis.subscriptions.deliver_due()
    [delivery] = receiver.documents
    assert_same_statements(documents, delivery)


async def test_the_signature_is_an_hmac_of_the_body(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await subscribe(client, name, dest=receiver.url, stream=True, signatureToken="t0ken")
    await capture(client, object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    expected = hmac.new(b"t0ken", receiver.bodies[0], hashlib.sha256).hexdigest()
    assert receiver.headers[0]["GS1-Signature"] == expected


def as_links(epcs: list[str]) -> list[str]:
    """EPCs as a subscription made without `GS1-EPC-Format` writes them."""
    return [canonical_epc(epc) for epc in epcs]


SGTIN = "urn:epc:id:sgtin:4012345.011111.7001"
SGTIN_LINK = "https://id.gs1.org/01/04012345111118/21/7001"
GLN = "urn:epc:id:sgln:4012345.00001.0"
GLN_LINK = "https://id.gs1.org/414/4012345000016"


@pytest.mark.parametrize(
    ("epc_format", "applied", "written"),
    [
        (None, "Always_GS1_Digital_Link", [SGTIN_LINK, GLN_LINK]),
        ("Always_GS1_Digital_Link", "Always_GS1_Digital_Link", [SGTIN_LINK, GLN_LINK]),
        ("Never_Translates", "Never_Translates", [SGTIN, GLN]),
        ("No_Preference", "Never_Translates", [SGTIN, GLN]),
    ],
)
async def test_a_webhook_delivers_epcs_in_the_format_its_subscription_was_made_with(
    tracepoint: Tracepoint,
    client: Client,
    receiver: Partner,
    epc_format: str | None,
    applied: str,
    written: list[str],
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True, epc_format=epc_format)
    assert response.status == 201, await response.text()
    await capture(client, object_event(epcList=[SGTIN], readPoint={"id": GLN}))
    await tracepoint.epcis.subscriptions.deliver_due()
    [event] = delivered(receiver)
    assert [event["epcList"][0], event["readPoint"]["id"]] == written
    assert receiver.headers[0]["GS1-EPC-Format"] == applied


async def test_a_webhook_delivers_epc_urns_where_the_company_prefix_is_known(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    await ok(client, "POST", "/items/organisation", {"organisation_company_prefix": "4012345"})
    name = await named_query(client)
    await subscribe(client, name, dest=receiver.url, stream=True, epc_format="Always_EPC_URN")
    await capture(client, object_event(epcList=[SGTIN_LINK]))
    await tracepoint.epcis.subscriptions.deliver_due()
    assert [e["epcList"] for e in delivered(receiver)] == [[SGTIN]]


async def test_a_subscription_made_before_formats_were_kept_delivers_as_captured(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True)
    key = (await response.json())["subscriptionID"]
    # As an upgraded store holds it: no format.
    change_record(tracepoint.store, "epcis_subscription", key, {"epc_format": None}, "2024-01-01")
    await capture(client, object_event(epcList=[SGTIN]))
    await tracepoint.epcis.subscriptions.deliver_due()
    assert [e["epcList"] for e in delivered(receiver)] == [[SGTIN]]
    assert receiver.headers[0]["GS1-EPC-Format"] == "Never_Translates"


async def test_a_subscription_asking_for_an_unknown_epc_format_is_refused(
    client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True, epc_format="URN")
    assert response.status == 406, await response.text()
    assert (await response.json())["type"] == "epcisException:NotAcceptableException"
    listed = await client.get(f"/v2/epcis/queries/{name}/subscriptions", headers=AUTH)
    assert await listed.json() == []


async def test_initial_record_time_replays_from_that_time(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await capture(client, object_event(), object_event())
    await subscribe(
        client, name, dest=receiver.url, stream=True, initialRecordTime="2000-01-01T00:00:00Z"
    )
    await tracepoint.epcis.subscriptions.deliver_due()
    assert len(delivered(receiver)) == 2


async def test_a_scheduled_subscription_reports_when_its_time_comes_even_if_empty(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await subscribe(client, name, dest=receiver.url, schedule={"second": "*"}, reportIfEmpty=True)
    await tracepoint.epcis.subscriptions.deliver_due()
    deadline = time.monotonic() + 3
    while not receiver.documents and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        await tracepoint.epcis.subscriptions.deliver_due()
    assert receiver.documents
    assert delivered(receiver) == []


async def test_a_scheduled_subscription_waits_for_its_time(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    await subscribe(client, name, dest=receiver.url, schedule={"hour": "3", "minute": "0"})
    await capture(client, object_event())
    await tracepoint.epcis.subscriptions.deliver_due()
    assert receiver.documents == []


async def test_a_failing_receiver_gets_the_events_once_it_is_back(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True)
    key = (await response.json())["subscriptionID"]
    await capture(client, object_event(), object_event())
    receiver.status = 503
    await tracepoint.epcis.subscriptions.deliver_due()
    state = await (await client.get(f"/v2/epcis/subscriptions/{key}", headers=AUTH)).json()
    assert state["status"] == "retrying"
    receiver.status = 202
    await tracepoint.epcis.subscriptions.deliver(key, report_if_empty=False)
    assert len(delivered(receiver)) == 2


async def test_a_receiver_answering_4xx_ends_the_subscription(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, dest=receiver.url, stream=True)
    key = (await response.json())["subscriptionID"]
    await capture(client, object_event())
    receiver.status = 410
    await tracepoint.epcis.subscriptions.deliver_due()
    state = await (await client.get(f"/v2/epcis/subscriptions/{key}", headers=AUTH)).json()
    assert (state["active"], state["status"]) == (False, "error")
    assert "410" in state["lastError"]


@pytest.mark.parametrize(
    ("controls", "message"),
    [
        ({"stream": True}, "dest"),
        ({"dest": "ftp://x", "stream": True}, "dest"),
        ({"dest": "http://127.0.0.1:9/x"}, "either"),
        ({"dest": "http://127.0.0.1:9/x", "stream": True, "schedule": {"second": "1"}}, "either"),
        ({"dest": "http://127.0.0.1:9/x", "schedule": {"second": "99"}}, "schedule"),
        ({"dest": "http://127.0.0.1:9/x", "schedule": {"week": "1"}}, "week"),
        (
            {"dest": "http://127.0.0.1:9/x", "stream": True, "initialRecordTime": "yesterday"},
            "initialRecordTime",
        ),
        ({"dest": "http://127.0.0.1:9/x", "stream": "yes"}, "stream"),
    ],
)
async def test_bad_controls_are_a_400_subscription_controls_exception(
    client: Client, controls: dict[str, Any], message: str
) -> None:
    name = await named_query(client)
    response = await subscribe(client, name, **controls)
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:SubscriptionControlsException"
    assert message in body["detail"]


async def problem(response: Any) -> tuple[int, str, str]:
    """The status, exception type and detail of an EPCIS exception response."""
    assert response.content_type == "application/problem+json", await response.text()
    body = await response.json()
    assert body["status"] == response.status
    return response.status, body["type"], body["detail"]


async def subscriptions(client: Client) -> list[dict[str, Any]]:
    """Every subscription, as the admin sees them."""
    response = await client.get("/v2/epcis/subscriptions", headers=AUTH)
    assert response.status == 200, await response.text()
    listed: list[dict[str, Any]] = await response.json()
    return listed


async def test_a_subscription_to_an_unknown_query_is_a_404(client: Client) -> None:
    response = await subscribe(client, "nothing", dest="http://127.0.0.1:9/x", stream=True)
    assert await problem(response) == (
        404,
        "epcisException:NoSuchNameException",
        "No query named 'nothing'",
    )
    assert await subscriptions(client) == []


async def test_the_spec_path_takes_the_query_name_in_the_body(
    client: Client, receiver: Partner
) -> None:
    name = await named_query(client)
    response = await client.post(
        "/v2/epcis/subscriptions",
        data=orjson.dumps({"queryName": name, "dest": receiver.url, "stream": True}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 201
    listed = await (await client.get("/v2/epcis/subscriptions", headers=AUTH)).json()
    assert [s["queryName"] for s in listed] == [name]


async def test_a_subscriber_gets_only_the_events_it_may_read(
    tracepoint: Tracepoint, client: Client, receiver: Partner
) -> None:
    reader = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"readPoint": {"_eq": "urn:epc:id:sgln:4012345.00001.0"}},
        },
        {"collection": "epcis_queries", "action": "read", "fields": ["*"]},
    )
    name = await named_query(client)
    response = await subscribe(client, name, token=reader.token, dest=receiver.url, stream=True)
    assert response.status == 201, await response.text()
    await capture(
        client,
        object_event(),
        object_event(readPoint={"id": "urn:epc:id:sgln:4012345.00002.0"}),
    )
    await tracepoint.epcis.subscriptions.deliver_due()
    assert [e["readPoint"]["id"] for e in delivered(receiver)] == [GLN_LINK]


async def test_a_user_who_may_not_read_events_cannot_subscribe(client: Client) -> None:
    nobody = await user_with(client, {"collection": "product", "action": "read"})
    name = await named_query(client)
    response = await subscribe(
        client, name, token=nobody.token, dest="http://127.0.0.1:9/x", stream=True
    )
    assert await problem(response) == (
        403,
        "epcisException:SecurityException",
        'You don\'t have permission to "read" EPCIS events.',
    )
    assert await subscriptions(client) == []


@pytest.fixture
async def stream(
    tracepoint: Tracepoint, client: Client, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[ClientWebSocketResponse]:
    """A WebSocket on the `shipping` named query, once it listens for new events."""
    async with listening_socket(tracepoint, client, monkeypatch, AUTH) as socket:
        yield socket


@asynccontextmanager
async def listening_socket(
    tracepoint: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    headers: dict[str, str],
) -> AsyncIterator[ClientWebSocketResponse]:
    """A WebSocket on the `shipping` named query opened with `headers`, once it listens
    for new events."""
    name = await named_query(client)
    async with listening_stream(tracepoint, client, monkeypatch, name, headers) as socket:
        yield socket


async def streamed(socket: ClientWebSocketResponse, documents: int) -> list[list[Any]]:
    """The events of the next documents the stream sends."""
    received = []
    for _ in range(documents):
        message = await socket.receive(timeout=30)
        assert message.type == WSMsgType.TEXT, message
        results = orjson.loads(message.data)["epcisBody"]["queryResults"]
        assert results["queryName"] == "shipping"
        received.append(results["resultsBody"]["eventList"])
    return received


async def test_a_websocket_receives_each_new_matching_event(
    client: Client, stream: ClientWebSocketResponse
) -> None:
    first, skipped, second = object_event(), object_event(bizStep="receiving"), object_event()
    await capture(client, first, skipped)
    await capture(client, second)
    received = [[e["epcList"] for e in events] for events in await streamed(stream, 2)]
    # One document per event, in capture order; the receiving event is not among them.
    assert received == [[as_links(first["epcList"])], [as_links(second["epcList"])]]


@pytest.mark.parametrize(
    ("epc_format", "written"),
    [(None, SGTIN_LINK), ("Never_Translates", SGTIN), ("Always_GS1_Digital_Link", SGTIN_LINK)],
)
async def test_a_websocket_sends_epcs_in_the_format_it_was_opened_with(
    tracepoint: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    epc_format: str | None,
    written: str,
) -> None:
    headers = dict(AUTH) if epc_format is None else {**AUTH, "GS1-EPC-Format": epc_format}
    async with listening_socket(tracepoint, client, monkeypatch, headers) as socket:
        await capture(client, object_event(epcList=[SGTIN]))
        [[event]] = await streamed(socket, 1)
    assert event["epcList"] == [written]


async def test_a_websocket_receives_a_declaration_after_its_event(
    client: Client, stream: ClientWebSocketResponse
) -> None:
    event = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d4")
    declaration = {"declarationTime": "2024-03-05T10:00:00Z", "reason": "did_not_occur"}
    await capture(client, event)
    await capture(client, {**event, "errorDeclaration": declaration})
    received = [[e.get("errorDeclaration") for e in events] for events in await streamed(stream, 2)]
    assert received == [[None], [declaration]]


class TestOwnNetwork:
    """Without an allow list, webhooks cannot reach the service's own network."""

    @pytest.fixture
    def settings(self, database_url: str) -> Settings:
        return make_settings(database_url, outbound_allow_list="")

    @pytest.mark.parametrize(
        "dest",
        [
            "http://127.0.0.1:8080/x",
            "http://10.0.0.7/x",
            "http://169.254.169.254/latest",
            "http://[::1]/x",
        ],
    )
    async def test_an_internal_dest_is_refused(self, client: Client, dest: str) -> None:
        name = await named_query(client)
        response = await subscribe(client, name, dest=dest, stream=True)
        assert response.status == 400
        assert "internal address" in (await response.json())["detail"]

    async def test_an_internal_partner_connection_is_refused(self, client: Client) -> None:
        response = await client.post(
            "/items/epcis_connection",
            data=orjson.dumps({"name": "x", "url": "http://127.0.0.1:9/capture"}),
            headers={**AUTH, "Content-Type": "application/json"},
        )
        assert response.status == 400
        assert code(await response.json()) == "INVALID_PAYLOAD"
        [error] = (await response.json())["errors"]
        assert error["extensions"]["reason"] == (
            '"url" its host 127.0.0.1 is an internal address (127.0.0.1); '
            "TRACEPOINT_OUTBOUND_ALLOW_LIST can let it through"
        )
        assert await ok(client, "GET", "/items/epcis_connection") == []


class TestAllowList:
    """The allow list lets named internal destinations through."""

    @pytest.fixture
    def settings(self, database_url: str) -> Settings:
        return make_settings(database_url, outbound_allow_list="http://127.0.0.1:9/ok, 10.1.0.0/16")

    @pytest.mark.parametrize("dest", ["http://127.0.0.1:9/ok/hook", "http://10.1.2.3/hook"])
    async def test_an_allowed_internal_dest_is_accepted(self, client: Client, dest: str) -> None:
        name = await named_query(client)
        response = await subscribe(client, name, dest=dest, stream=True)
        assert response.status == 201, await response.text()

    async def test_what_the_list_does_not_name_is_refused(self, client: Client) -> None:
        name = await named_query(client)
        response = await subscribe(client, name, dest="http://127.0.0.1:9/other", stream=True)
        assert await problem(response) == (
            400,
            "epcisException:SubscriptionControlsException",
            "'dest' its host 127.0.0.1 is an internal address (127.0.0.1); "
            "TRACEPOINT_OUTBOUND_ALLOW_LIST can let it through",
        )
        assert await subscriptions(client) == []
