"""`POST /v2/epcis/capture`, `GET /v2/epcis/capture/{id}` and `POST /v2/epcis/validate`."""

from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from domain.epcis.event_hash import event_hash
from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import document, object_event

Client = TestClient[Any, Any]


async def capture(client: Client, body: Any, **headers: str) -> Any:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    return await client.post(
        "/v2/epcis/capture",
        data=data,
        headers={**AUTH, "Content-Type": "application/json", **headers},
    )


async def events(client: Client, **params: str) -> list[dict[str, Any]]:
    """The events a query finds, as they were captured."""
    response = await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
    assert response.status == 200, await response.text()
    body = await response.json()
    result: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return result


async def test_capture_answers_201_with_a_capture_response_and_location(client: Client) -> None:
    response = await capture(client, document(object_event()))
    assert response.status == 201
    body = await response.json()
    assert body["type"] == "EPCISCaptureResponse"
    assert response.headers["Location"] == f"/v2/epcis/capture/{body['captureID']}"
    assert "1 new event" in body["message"]


async def test_capture_advertises_its_limits(client: Client) -> None:
    response = await capture(client, document(object_event()))
    assert response.headers["GS1-EPCIS-Capture-Limit"] == "10000"
    assert int(response.headers["GS1-EPCIS-Capture-File-Size-Limit"]) > 0


async def test_captured_events_are_queryable_when_capture_returns(client: Client) -> None:
    event = object_event()
    await capture(client, document(event))
    stored = await events(client)
    assert len(stored) == 1
    returned = dict(stored[0])
    assert returned.pop("eventID").startswith("ni:///sha-256;")
    assert returned.pop("recordTime").endswith("Z")
    assert returned == event


async def test_a_capture_after_the_terms_were_numbered_afresh_is_found_by_its_values(
    tracepoint: Tracepoint, client: Client
) -> None:
    # The service keeps term numbers it has read; another process building the tables
    # afresh gives them new ones. The capture must not index its event under the old.
    for _ in range(2):  # the second capture reads its terms as there already: kept
        await capture(client, document(object_event()))
    with tracepoint.database.transaction() as conn:
        rows = conn.fetchall("SELECT kind, value FROM epcis_terms ORDER BY id")
        conn.execute("DELETE FROM epcis_terms")
        conn.executemany("INSERT INTO epcis_terms (kind, value) VALUES (?, ?)", rows[::-1])
    event = object_event()
    response = await capture(client, document(event))
    assert response.status == 201
    found = await events(client, EQ_bizStep="shipping", MATCH_epc=event["epcList"][0])
    assert [e["epcList"] for e in found] == [event["epcList"]]


async def test_an_event_keeps_the_event_id_it_was_captured_with(client: Client) -> None:
    await capture(
        client, document(object_event(eventID="urn:uuid:5c4bbd1a-1111-4cf4-8f13-0c0a7a1f6a11"))
    )
    (stored,) = await events(client)
    assert stored["eventID"] == "urn:uuid:5c4bbd1a-1111-4cf4-8f13-0c0a7a1f6a11"


async def test_an_event_with_a_json_ld_id_is_stored_and_read_back_with_it(
    client: Client,
) -> None:
    event = object_event(id="urn:uuid:0b5e0a2c-54a6-4c55-9d1c-3f0e6b7d8a90")
    response = await capture(client, document(event))
    assert response.status == 201, await response.text()

    (stored,) = await events(client)
    assert stored.pop("eventID") == event_hash(event)
    assert stored.pop("recordTime")
    assert stored == event


async def test_a_read_point_with_fields_beside_its_id_is_read_back_and_found_by_its_id(
    client: Client,
) -> None:
    place = {"id": "urn:epc:id:sgln:4012345.00007.0", "name": "Dock 7"}
    event = object_event(readPoint=place)
    response = await capture(client, document(event))
    assert response.status == 201, await response.text()

    (stored,) = await events(client, EQ_readPoint="urn:epc:id:sgln:4012345.00007.0")
    assert stored["readPoint"] == place


async def test_a_quantity_with_a_unit_but_no_amount_is_stored_and_found_by_its_class(
    client: Client,
) -> None:
    lot = "urn:epc:class:lgtin:4012345.011111.LOT9"
    event = object_event(epcList=None, quantityList=[{"epcClass": lot, "uom": "KGM"}])
    response = await capture(client, document(event))
    assert response.status == 201, await response.text()

    (stored,) = await events(client, MATCH_epcClass=lot)
    assert stored["quantityList"] == [{"epcClass": lot, "uom": "KGM"}]


async def test_sensor_values_in_any_unit_and_any_hex_are_stored_and_read_back(
    client: Client,
) -> None:
    report = {"type": "Temperature", "value": 4.5, "uom": "Cel", "hexBinaryValue": "abc"}
    event = object_event(sensorElementList=[{"sensorReport": [report]}])
    response = await capture(client, document(event))
    assert response.status == 201, await response.text()

    (stored,) = await events(client)
    assert stored["sensorElementList"] == [{"sensorReport": [report]}]


async def test_capture_job_reports_counts_and_success(client: Client) -> None:
    response = await capture(client, document(object_event(), object_event()))
    job = await client.get(response.headers["Location"], headers=AUTH)
    assert job.status == 200
    body = await job.json()
    assert body["running"] is False
    assert body["success"] is True
    assert body["eventsCaptured"] == 2
    assert body["eventsAlreadyPresent"] == 0
    assert body["errors"] == []
    assert body["captureErrorBehaviour"] == "rollback"


async def test_unknown_capture_job_is_404(client: Client) -> None:
    response = await client.get("/v2/epcis/capture/no-such-job", headers=AUTH)
    assert response.status == 404
    assert (await response.json())["type"] == "epcisException:NoSuchResourceException"


async def test_capturing_the_same_document_twice_stores_each_event_once(client: Client) -> None:
    doc = document(object_event(), object_event())
    await capture(client, doc)
    second = await capture(client, doc)
    assert second.status == 201
    assert "0 new event(s); 2 already present" in (await second.json())["message"]
    assert len(await events(client)) == 2
    job = await (await client.get(second.headers["Location"], headers=AUTH)).json()
    assert (job["eventsCaptured"], job["eventsAlreadyPresent"]) == (0, 2)


async def test_the_same_event_twice_in_one_document_is_stored_once(client: Client) -> None:
    event = object_event()
    response = await capture(client, document(event, dict(event)))
    assert "1 new event(s); 1 already present" in (await response.json())["message"]
    assert len(await events(client)) == 1


async def test_an_invalid_document_gets_400_text_plain_with_each_violation(
    client: Client,
) -> None:
    bad = document(object_event(), object_event(action="SHIPPING", eventTime="yesterday"))
    response = await capture(client, bad)
    assert response.status == 400
    assert response.content_type == "text/plain"
    text = await response.text()
    lines = text.splitlines()
    assert lines[0] == "EPCIS Document is invalid;"
    assert any(line.startswith("epcisBody.eventList.1.action:") for line in lines[1:])
    assert any(line.startswith("epcisBody.eventList.1.eventTime:") for line in lines[1:])


async def test_an_invalid_document_stores_nothing(client: Client) -> None:
    await capture(client, document(object_event(), object_event(action="SHIPPING")))
    assert await events(client) == []


async def test_proceed_stores_the_valid_events_and_reports_the_invalid_ones(
    client: Client,
) -> None:
    bad = object_event(action="SHIPPING")
    response = await capture(
        client,
        document(object_event(), bad, object_event()),
        **{"GS1-Capture-Error-Behaviour": "proceed"},
    )
    assert response.status == 201
    assert len(await events(client)) == 2
    job = await (await client.get(response.headers["Location"], headers=AUTH)).json()
    assert job["success"] is False
    assert job["eventsRejected"] == 1
    assert job["errors"][0]["location"].startswith("epcisBody.eventList.1")


async def test_proceed_reports_invalid_events_of_a_large_capture_at_their_own_index(
    client: Client,
) -> None:
    sent = [object_event() for _ in range(100)]
    sent[10] = object_event(action="SHIPPING")
    sent[70] = object_event(action="SHIPPING")
    response = await capture(client, document(*sent), **{"GS1-Capture-Error-Behaviour": "proceed"})
    assert response.status == 201
    job = await (await client.get(response.headers["Location"], headers=AUTH)).json()
    assert [e["location"].split(".")[2] for e in job["errors"]] == ["10", "70"]
    stored = await events(client, perPage="1000")
    assert sorted(e["eventID"] for e in stored) == sorted(
        event_hash(e, {}) for i, e in enumerate(sent) if i not in (10, 70)
    )


async def test_an_unknown_error_behaviour_is_400(client: Client) -> None:
    response = await capture(
        client, document(object_event()), **{"GS1-Capture-Error-Behaviour": "sometimes"}
    )
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:ValidationException"
    assert body["detail"] == (
        "GS1-Capture-Error-Behaviour 'sometimes' is not supported; use rollback or proceed"
    )
    assert await events(client) == []


async def test_malformed_json_is_400_naming_the_problem(client: Client) -> None:
    response = await capture(client, b'{"type": "EPCISDocument", ')
    assert response.status == 400
    assert "(root): The body is not valid JSON" in await response.text()


async def test_an_empty_body_is_400(client: Client) -> None:
    response = await capture(client, b"")
    assert response.status == 400
    assert response.content_type == "text/plain"
    assert await response.text() == "EPCIS Document is invalid;\n(root): The request body is empty"


async def test_a_document_with_no_events_is_captured_as_nothing(client: Client) -> None:
    response = await capture(client, document())
    assert response.status == 201, await response.text()

    job = await (await client.get(response.headers["Location"], headers=AUTH)).json()
    assert (job["success"], job["eventsReceived"], job["eventsCaptured"]) == (True, 0, 0)
    assert await events(client) == []


async def test_a_body_that_is_not_an_object_is_400(client: Client) -> None:
    response = await capture(client, [1, 2, 3])
    assert response.status == 400
    assert response.content_type == "text/plain"
    assert (await response.text()).splitlines() == [
        "EPCIS Document is invalid;",
        "(root): [1, 2, 3] is not of type 'object'",
    ]
    assert await events(client) == []


async def test_a_wrong_content_type_is_415(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/capture",
        data=b"eventTime,action",
        headers={**AUTH, "Content-Type": "text/csv"},
    )
    assert response.status == 415
    assert (await response.json())["type"] == "epcisException:UnsupportedMediaTypeException"


async def test_json_ld_content_type_is_accepted(client: Client) -> None:
    event = object_event(eventID="urn:uuid:5c4bbd1a-2222-4cf4-8f13-0c0a7a1f6a11")
    response = await capture(client, document(event), **{"Content-Type": "application/ld+json"})
    assert response.status == 201
    body = await response.json()
    assert body["type"] == "EPCISCaptureResponse"
    assert body["message"] == "Captured 1 new event(s); 0 already present"
    assert [e["eventID"] for e in await events(client)] == [event["eventID"]]


async def test_more_events_than_the_limit_is_413_naming_the_limit(
    client: Client, tracepoint: Tracepoint
) -> None:
    tracepoint.epcis.capture.max_events = 2
    response = await capture(client, document(object_event(), object_event(), object_event()))
    assert response.status == 413
    body = await response.json()
    assert body["type"] == "epcisException:CaptureLimitExceededException"
    assert "at most 2 events" in body["detail"]
    assert await events(client) == []


async def test_a_body_larger_than_the_byte_limit_is_413_naming_the_limit(
    client: Client, tracepoint: Tracepoint
) -> None:
    limit = tracepoint.settings.capture_max_bytes
    response = await capture(client, b" " * (limit + 1))
    assert response.status == 413
    assert str(limit) in (await response.json())["detail"]


async def test_a_streamed_body_over_the_byte_limit_is_413(
    client: Client, tracepoint: Tracepoint
) -> None:
    tracepoint.settings.capture_max_bytes = 1000

    async def stream() -> Any:
        for _ in range(10):
            yield b" " * 500

    response = await client.post(
        "/v2/epcis/capture",
        data=stream(),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 413
    body = await response.json()
    assert body["type"] == "epcisException:CaptureLimitExceededException"
    assert body["detail"] == (
        "The document is larger than 1000 bytes, the most this repository accepts in one request"
    )
    assert await events(client) == []


async def test_an_event_time_that_cannot_be_placed_on_the_time_line_is_rejected(
    client: Client,
) -> None:
    response = await capture(client, document(object_event(eventTime="2024-12-31T23:59:60Z")))
    assert response.status == 400
    assert "epcisBody.eventList.0.eventTime" in await response.text()
    assert await events(client) == []


async def test_text_with_a_nul_character_is_rejected_where_it_stands(client: Client) -> None:
    response = await capture(client, document(object_event(), object_event(bizStep="a\x00b")))
    assert response.status == 400
    assert "epcisBody.eventList.1.bizStep: Text must not contain the NUL" in await response.text()
    assert await events(client) == []


async def test_an_event_id_too_long_to_index_is_rejected(client: Client) -> None:
    response = await capture(client, document(object_event(eventID="urn:x:" + "a" * 600)))
    assert response.status == 400
    assert "epcisBody.eventList.0.eventID" in await response.text()


async def test_a_very_long_extension_value_is_stored_and_read_back(client: Client) -> None:
    context = [
        "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld",
        {"ex": "https://example.com/epcis/"},
    ]
    long_step = "urn:example:" + "s" * 3000
    event = object_event(**{"ex:note": "n" * 9000, "bizStep": long_step})
    response = await capture(client, document(event, context=context))
    assert response.status == 201, await response.text()
    (stored,) = await events(client)
    assert stored["ex:note"] == "n" * 9000
    assert stored["bizStep"] == long_step
    # Values too long to index stay out of the index tables (projections/epcis/events.py)
    # without keeping the event's other fields out: a query on its EPC finds it.
    assert await events(client, MATCH_epc=event["epcList"][0]) == [stored]


async def test_an_undecodable_token_is_401(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/capture",
        data=orjson.dumps(document(object_event())),
        headers={"Content-Type": "application/json", "Authorization": "Bearer ab\udcffcd"},
    )
    assert response.status == 401
    body = await response.json()
    assert body["type"] == "epcisException:SecurityException"
    assert body["detail"] == "The token is not a valid static token"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="tracepoint"'
    assert await events(client) == []


async def test_capture_without_a_token_is_401(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/capture",
        data=orjson.dumps(document(object_event())),
        headers={"Content-Type": "application/json"},
    )
    assert response.status == 401
    assert (await response.json())["type"] == "epcisException:SecurityException"


async def test_capture_with_a_wrong_token_is_401(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/capture",
        data=orjson.dumps(document(object_event())),
        headers={"Content-Type": "application/json", "Authorization": "Bearer nope"},
    )
    assert response.status == 401
    body = await response.json()
    assert body["type"] == "epcisException:SecurityException"
    assert body["detail"] == "The token is not a valid static token"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="tracepoint"'
    assert await events(client) == []


async def test_validate_answers_valid_and_stores_nothing(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/validate",
        data=orjson.dumps(document(object_event())),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 200
    body = await response.json()
    assert body["type"] == "EPCISValidationResponse"
    assert body["status"] == "valid"
    assert await events(client) == []


async def test_validate_rejects_an_invalid_document_like_capture(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/validate",
        data=orjson.dumps(document(object_event(action="NOPE"))),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 400
    assert (await response.text()).startswith("EPCIS Document is invalid;\n")


async def test_validate_refuses_an_event_id_that_is_not_the_hash_of_its_event(
    client: Client,
) -> None:
    event = object_event()
    forged = dict(event, eventID=event_hash(object_event()))
    response = await client.post(
        "/v2/epcis/validate",
        data=orjson.dumps(document(forged)),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 400
    text = await response.text()
    assert "epcisBody.eventList.0.eventID: The eventID is not the CBV 2.0 hash" in text
    assert event_hash(event) in text


async def test_capture_options_advertise_limits_and_error_behaviours(client: Client) -> None:
    response = await client.options("/v2/epcis/capture", headers=AUTH)
    assert response.status == 204
    assert response.headers["GS1-Capture-Error-Behaviour"] == "rollback, proceed"
    assert "GS1-EPCIS-Capture-Limit" in response.headers


def _nested(depth: int) -> dict[str, Any]:
    """A valid document whose one event carries an extension nested `depth` levels deep."""
    value: Any = "bottom"
    for _ in range(depth):
        value = {"example:deeper": value}
    return document(object_event(**{"example:nest": value}))


@pytest.mark.parametrize("path", ["/v2/epcis/capture", "/v2/epcis/validate"])
async def test_a_document_nested_hundreds_of_levels_deep_is_400_naming_the_limit(
    client: Client, path: str
) -> None:
    response = await client.post(path, json=_nested(300), headers=AUTH)
    assert response.status == 400
    text = await response.text()
    assert text.startswith("EPCIS Document is invalid;\n(root): The document nests objects")
    assert "deeper than 128 levels (at epcisBody.eventList.0.example:nest" in text
    assert await events(client) == []


async def test_a_document_nested_less_than_the_limit_is_captured(client: Client) -> None:
    response = await client.post("/v2/epcis/capture", json=_nested(100), headers=AUTH)
    assert response.status == 201, await response.text()
    assert len(await events(client)) == 1


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
@pytest.mark.parametrize("path", ["/v2/epcis/capture", "/v2/epcis/validate"])
async def test_a_corrupt_compressed_body_is_400_saying_it_cannot_be_read(
    client: Client, path: str, encoding: str
) -> None:
    headers = {**AUTH, "Content-Type": "application/json", "Content-Encoding": encoding}
    response = await client.post(path, data=b"\x1f\x8b not really compressed", headers=headers)
    assert response.status == 400
    body = await response.json(content_type="application/problem+json")
    assert body["type"] == "epcisException:ValidationException"
    assert body["detail"].startswith("The request body cannot be read:")
    assert f"Can not decode content-encoding: {encoding}" in body["detail"]
    assert response.headers["Connection"] == "close"
    assert await events(client) == []
