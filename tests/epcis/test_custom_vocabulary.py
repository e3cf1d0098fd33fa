"""Custom vocabulary matches in every form: a value written as a CURIE is found by the IRI
it stands for, and an IRI by a CURIE, as standard CBV values are in their three forms."""

import uuid
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient

from tests.conftest import AUTH
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture

Client = TestClient[Any, Any]

EX = "https://vocabulary.example.com/supply/"
OTHER = "https://elsewhere.example.com/"

#: Each IRI field: the event fields holding a value, and the parameter that finds it.
FIELDS = {
    "bizStep": (lambda v: {"bizStep": v}, "EQ_bizStep"),
    "disposition": (lambda v: {"disposition": v}, "EQ_disposition"),
    "readPoint": (lambda v: {"readPoint": {"id": v}}, "EQ_readPoint"),
    "bizLocation": (lambda v: {"bizLocation": {"id": v}}, "EQ_bizLocation"),
    "epcList": (lambda v: {"epcList": [v]}, "MATCH_epc"),
    "bizTransaction": (
        lambda v: {"bizTransactionList": [{"type": "po", "bizTransaction": v}]},
        "EQ_bizTransaction_po",
    ),
    "sourceType": (
        lambda v: {"sourceList": [{"type": v, "source": "urn:epc:id:pgln:4012345.00000"}]},
        "EQ_source_{}",
    ),
}


async def store(client: Client, *events: dict[str, Any], bound: str | None = EX) -> list[str]:
    """Capture the events in one document binding `ex` to `bound`; their eventIDs."""
    context: list[Any] = [CONTEXT, {"ex": bound}] if bound else [CONTEXT]
    events = tuple({"eventID": f"urn:uuid:{uuid.uuid4()}", **e} for e in events)
    response = await capture(client, document(*events, context=context))
    assert response.status == 201, await response.text()
    return [e["eventID"] for e in events]


async def found(client: Client, params: dict[str, str], **headers: str) -> list[str]:
    response = await client.get("/v2/epcis/events", params=params, headers={**AUTH, **headers})
    assert response.status == 200, await response.text()
    body = await response.json()
    return sorted(
        e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    )


def event(field: str, value: str) -> dict[str, Any]:
    fields, _ = FIELDS[field]
    return object_event(**fields(value))


def query(field: str, value: str) -> dict[str, str]:
    _, parameter = FIELDS[field]
    if "{}" in parameter:
        return {parameter.format(value): "urn:epc:id:pgln:4012345.00000"}
    return {parameter: value}


@pytest.mark.parametrize("field", FIELDS)
async def test_a_value_captured_as_a_curie_is_found_by_its_iri(client: Client, field: str) -> None:
    [stored] = await store(client, event(field, "ex:dock"))
    assert await found(client, query(field, EX + "dock")) == [stored]


@pytest.mark.parametrize("field", FIELDS)
async def test_a_value_captured_as_an_iri_is_found_by_its_curie(client: Client, field: str) -> None:
    [stored] = await store(client, event(field, EX + "dock"))
    assert await found(client, query(field, "ex:dock")) == [stored]


async def test_a_curie_is_still_found_by_the_same_curie(client: Client) -> None:
    [stored] = await store(client, object_event(bizStep="ex:checking"))
    assert await found(client, {"EQ_bizStep": "ex:checking"}) == [stored]


async def test_the_same_curie_under_other_bindings_names_other_steps(client: Client) -> None:
    [here] = await store(client, object_event(bizStep="ex:checking"))
    [there] = await store(client, object_event(bizStep="ex:checking"), bound=OTHER)
    assert await found(client, {"EQ_bizStep": EX + "checking"}) == [here]
    assert await found(client, {"EQ_bizStep": OTHER + "checking"}) == [there]


async def test_a_curie_whose_prefix_no_document_bound_is_matched_as_written(
    client: Client,
) -> None:
    [stored] = await store(client, object_event(bizStep="zz:checking"), bound=None)
    assert await found(client, {"EQ_bizStep": "zz:checking"}) == [stored]


async def test_an_events_own_context_binds_its_curies(client: Client) -> None:
    own = object_event(**{"@context": [{"ex": OTHER}], "bizStep": "ex:checking"})
    [stored] = await store(client, own)
    assert await found(client, {"EQ_bizStep": OTHER + "checking"}) == [stored]


async def test_a_curie_whose_prefix_documents_bound_differently_is_refused(
    client: Client,
) -> None:
    await store(client, object_event(bizStep="ex:checking"))
    await store(client, object_event(bizStep="ex:checking"), bound=OTHER)
    response = await client.get(
        "/v2/epcis/events", params={"EQ_bizStep": "ex:checking"}, headers=AUTH
    )
    assert response.status == 400
    body = await response.json()
    assert body["type"] == "epcisException:QueryParameterException"
    assert "EQ_bizStep" in body["detail"]
    assert "bound to more than one namespace" in body["detail"]


async def test_the_gs1_extensions_header_binds_a_prefix_the_documents_disagree_on(
    client: Client,
) -> None:
    await store(client, object_event(bizStep="ex:checking"))
    [there] = await store(client, object_event(bizStep="ex:checking"), bound=OTHER)
    header = {"GS1-Extensions": f"ex={OTHER}, other=urn:example:"}
    assert await found(client, {"EQ_bizStep": "ex:checking"}, **header) == [there]


async def test_a_malformed_gs1_extensions_header_is_a_400(client: Client) -> None:
    response = await client.get(
        "/v2/epcis/events", headers={**AUTH, "GS1-Extensions": "ex https://x.example/"}
    )
    assert response.status == 400
    assert "prefix=namespace" in (await response.json())["detail"]


async def define(client: Client, name: str, query_object: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(
        "/v2/epcis/queries",
        data=orjson.dumps({"name": name, "query": query_object}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 201, await response.text()
    defined: dict[str, Any] = await response.json()
    return defined


async def named_events(client: Client, name: str) -> list[str]:
    response = await client.get(f"/v2/epcis/queries/{name}/events", headers=AUTH)
    assert response.status == 200, await response.text()
    body = await response.json()
    return sorted(
        e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    )


async def test_a_named_query_reads_its_curies_by_its_own_context(client: Client) -> None:
    await store(client, object_event(bizStep="ex:checking"))
    [there] = await store(client, object_event(bizStep="ex:checking"), bound=OTHER)
    defined = await define(
        client, "checks", {"@context": [{"ex": OTHER}], "EQ_bizStep": ["ex:checking"]}
    )
    assert defined["query"] == {"EQ_bizStep": [OTHER + "checking"]}
    assert await named_events(client, "checks") == [there]


async def test_a_named_query_without_context_reads_its_curies_by_the_captured_documents(
    client: Client,
) -> None:
    [stored] = await store(client, object_event(bizStep=EX + "checking"))
    await define(client, "checks", {"EQ_bizStep": ["ex:checking"]})
    assert await named_events(client, "checks") == [stored]
