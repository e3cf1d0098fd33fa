"""Named queries under `/v2/epcis/queries`."""

from typing import Any

import orjson
from aiohttp.test_utils import TestClient

from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]


async def define(client: Client, body: Any) -> Any:
    return await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps(body),
        headers={**AUTH, "Content-Type": "application/json"},
    )


RECEIVING = {
    "name": "receipts",
    "query": {"EQ_bizStep": ["receiving"], "eventType": ["ObjectEvent"]},
}


async def test_defining_a_query_answers_201_with_its_location(client: Client) -> None:
    response = await define(client, RECEIVING)
    assert response.status == 201
    assert response.headers["Location"] == "/v2/epcis/queries/receipts"
    body = await response.json()
    assert body["name"] == "receipts"
    assert body["query"] == RECEIVING["query"]


async def test_a_defined_query_can_be_read_and_listed(client: Client) -> None:
    await define(client, RECEIVING)
    one = await client.get("/v2/epcis/queries/receipts", headers=AUTH)
    assert (await one.json())["query"] == RECEIVING["query"]
    listed = await (await client.get("/v2/epcis/queries", headers=AUTH)).json()
    assert [q["name"] for q in listed] == ["receipts"]


async def test_a_duplicate_name_is_409(client: Client) -> None:
    await define(client, RECEIVING)
    response = await define(client, RECEIVING)
    assert response.status == 409
    assert (await response.json())["type"] == "epcisException:ResourceAlreadyExistsException"


async def test_named_query_events_answer_with_the_stored_parameters(client: Client) -> None:
    await capture(client, document(object_event(bizStep="receiving"), object_event()))
    await define(client, RECEIVING)
    response = await client.get("/v2/epcis/queries/receipts/events", headers=AUTH)
    assert response.status == 200
    body = await response.json()
    assert body["epcisBody"]["queryResults"]["queryName"] == "receipts"
    events = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert [e["bizStep"] for e in events] == ["receiving"]


async def test_named_query_events_include_events_captured_after_the_definition(
    client: Client,
) -> None:
    await define(client, RECEIVING)
    await capture(client, document(object_event(bizStep="receiving")))
    response = await client.get("/v2/epcis/queries/receipts/events", headers=AUTH)
    body = await response.json()
    assert len(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == 1


async def test_named_query_events_page_like_events(client: Client) -> None:
    await capture(client, document(*[object_event(bizStep="receiving") for _ in range(5)]))
    await define(client, RECEIVING)
    response = await client.get(
        "/v2/epcis/queries/receipts/events", params={"perPage": "2"}, headers=AUTH
    )
    assert (
        len((await response.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == 2
    )
    assert 'rel="next"' in response.headers["Link"]


async def test_deleting_a_query_answers_204_and_it_is_gone(client: Client) -> None:
    await define(client, RECEIVING)
    response = await client.delete("/v2/epcis/queries/receipts", headers=AUTH)
    assert response.status == 204
    gone = await client.get("/v2/epcis/queries/receipts", headers=AUTH)
    assert gone.status == 404
    assert (await gone.json())["type"] == "epcisException:NoSuchNameException"


async def test_a_deleted_name_can_be_defined_again(client: Client) -> None:
    await define(client, RECEIVING)
    await client.delete("/v2/epcis/queries/receipts", headers=AUTH)
    again = {"name": "receipts", "query": {"EQ_bizStep": ["shipping"]}}
    response = await define(client, again)
    assert response.status == 201
    body = await (await client.get("/v2/epcis/queries/receipts", headers=AUTH)).json()
    assert body["query"] == {"EQ_bizStep": ["shipping"]}


async def problem(response: Any) -> tuple[int, str, str]:
    """The status, exception type and detail of an EPCIS exception response."""
    assert response.content_type == "application/problem+json", await response.text()
    body = await response.json()
    assert body["status"] == response.status
    assert body["title"] == {400: "Bad request", 404: "Not found"}[response.status]
    return response.status, body["type"], body["detail"]


async def test_unknown_query_is_404_for_read_delete_and_events(client: Client) -> None:
    for method, path in (
        ("GET", "/v2/epcis/queries/nope"),
        ("DELETE", "/v2/epcis/queries/nope"),
        ("GET", "/v2/epcis/queries/nope/events"),
    ):
        response = await client.request(method, path, headers=AUTH)
        assert await problem(response) == (
            404,
            "epcisException:NoSuchNameException",
            "No query named 'nope'",
        ), (method, path)


async def test_a_query_with_an_unknown_parameter_is_rejected_when_defined(client: Client) -> None:
    response = await define(client, {"name": "bad", "query": {"EQ_colour": ["red"]}})
    assert await problem(response) == (
        400,
        "epcisException:QueryValidationException",
        "query: EQ_colour is not a known EPCIS query parameter",
    )
    assert (await client.get("/v2/epcis/queries/bad", headers=AUTH)).status == 404


async def test_a_definition_without_name_or_query_is_400(client: Client) -> None:
    bodies: list[Any] = [{"query": {"eventType": ["ObjectEvent"]}}, {"name": "x"}, [], "x"]
    for body in bodies:
        response = await define(client, body)
        assert await problem(response) == (
            400,
            "epcisException:QueryValidationException",
            "The body needs 'name' and 'query'",
        ), body
    assert await (await client.get("/v2/epcis/queries", headers=AUTH)).json() == []


async def test_a_name_that_cannot_be_a_path_segment_is_400(client: Client) -> None:
    response = await define(client, {"name": "a/b", "query": {"eventType": ["ObjectEvent"]}})
    status, kind, detail = await problem(response)
    assert (status, kind) == (400, "epcisException:QueryValidationException")
    assert detail.startswith("name must be 1 to 200 letters, digits, '.', '_', '~' or '-'")
    assert await (await client.get("/v2/epcis/queries", headers=AUTH)).json() == []


async def test_malformed_json_is_400(client: Client) -> None:
    response = await client.post(
        "/v2/epcis/queries", data=b"{", headers={**AUTH, "Content-Type": "application/json"}
    )
    status, kind, detail = await problem(response)
    assert (status, kind) == (400, "epcisException:QueryValidationException")
    assert detail.startswith("Body is not JSON: ")


async def test_named_query_events_refuse_extra_query_parameters(client: Client) -> None:
    await define(client, RECEIVING)
    response = await client.get(
        "/v2/epcis/queries/receipts/events", params={"EQ_bizStep": "shipping"}, headers=AUTH
    )
    assert await problem(response) == (
        400,
        "epcisException:QueryParameterException",
        "EQ_bizStep: a named query's parameters are fixed; only perPage and nextPageToken "
        "may be given",
    )
