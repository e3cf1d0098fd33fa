"""Returned events mean what was captured: read by a JSON-LD processor, every event of a
query answer states the IRIs its capture document stated, whatever else shares the page."""

import uuid
from typing import Any

from aiohttp.test_utils import TestClient

from domain.epcis.event_hash import document_context, document_ignore_fields, event_hash
from infrastructure.epcis_schema import DocumentValidator
from tests.conftest import AS_CAPTURED
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.jsonld import event_statements
from tests.epcis.test_capture import capture
from tests.epcis.test_conformance_corpus import CONFORMING, load

Client = TestClient[Any, Any]

#: Rebinds `cbvmda`, which the EPCIS context protects: a JSON-LD processor refuses the
#: capture document itself, and with it any document holding its events.
REFUSED_BY_JSON_LD = {"TransformationEvent_all_possible_fields.json"}

FIRST = "https://first.example.com/vocabulary/"
SECOND = "https://second.example.com/terms#"


def clashing_documents() -> list[dict[str, Any]]:
    """Two captures binding `ex` to different namespaces, their events using it alike."""
    return [
        document(
            object_event(
                bizStep="ex:checking",
                readPoint={"id": "ex:dock-1"},
                **{"ex:temperature": 4.5, "ex:grade": "A"},
            ),
            context=[CONTEXT, {"ex": namespace}],
        )
        for namespace in (FIRST, SECOND)
    ]


async def answer(client: Client, **params: str) -> dict[str, Any]:
    response = await client.get(
        "/v2/epcis/events", params={"perPage": "1000", **params}, headers=AS_CAPTURED
    )
    assert response.status == 200, await response.text()
    body: dict[str, Any] = await response.json()
    return body


def returned_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return events


async def capture_all(client: Client, documents: list[dict[str, Any]]) -> None:
    for captured in documents:
        response = await capture(client, captured)
        assert response.status == 201, await response.text()


DECLARATION = "https://ref.gs1.org/epcis/errorDeclaration"


def assert_same_statements(captured: list[dict[str, Any]], body: dict[str, Any]) -> None:
    """Every captured event is returned stating exactly what it stated at capture; an
    event captured again under its eventID is the first capture's."""
    returned = event_statements(body)
    by_id: dict[str, set[frozenset[Any]]] = {}
    for event_id, statements in returned:
        by_id.setdefault(str(event_id), set()).add(statements)
    anonymous = {statements for _, statements in returned}
    seen: set[tuple[str, bool]] = set()
    for capture_document in captured:
        for event_id, statements in event_statements(capture_document):
            if event_id is None:
                assert statements in anonymous, statements
                continue
            # The event and an error declaration of it share the ID: each is a record.
            record = (event_id, any(p == DECLARATION for p, _ in statements))
            if record not in seen:
                seen.add(record)
                assert statements in by_id[event_id], event_id


def with_own_ids(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """The document with its `urn:uuid` IDs made its own (the corpus gives one ID to
    different events in different documents, which one repository refuses as conflicts),
    and its events named as the repository names them, so that of two that are the same
    event spelled differently the first capture is the one returned."""
    namespaces, ignore = document_context(doc), document_ignore_fields(doc)
    for event in doc["epcisBody"]["eventList"]:
        event_id = event.get("eventID")
        if event_id is None:
            event["eventID"] = event_hash(event, namespaces, ignore_fields=ignore)
        elif isinstance(event_id, str) and event_id.startswith("urn:uuid:"):
            event["eventID"] = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, name + event_id)}"
    return doc


async def test_every_corpus_event_states_in_one_page_what_its_capture_stated(
    client: Client,
) -> None:
    documents = [
        with_own_ids(load(p), p.name) for p in CONFORMING if p.name not in REFUSED_BY_JSON_LD
    ]
    await capture_all(client, documents)
    assert_same_statements(documents, await answer(client))


async def test_events_whose_documents_bound_one_prefix_differently_keep_their_iris(
    client: Client,
) -> None:
    documents = clashing_documents()
    await capture_all(client, documents)
    assert_same_statements(documents, await answer(client))


async def test_an_event_using_a_prefix_its_document_left_unbound_keeps_it_unbound(
    client: Client,
) -> None:
    documents = [
        document(object_event(**{"ex:grade": "A"}), context=[CONTEXT, {"ex": FIRST}]),
        # Unbound, `ex:grade` is the IRI `ex:grade` itself.
        document(object_event(**{"ex:grade": "B"})),
    ]
    await capture_all(client, documents)
    assert_same_statements(documents, await answer(client))


async def test_the_document_context_keeps_the_first_binding_and_a_clashing_event_its_own(
    client: Client,
) -> None:
    await capture_all(client, clashing_documents())
    body = await answer(client)
    assert body["@context"][1:] == [{"ex": FIRST}]
    first, second = returned_events(body)
    assert "@context" not in first
    assert second["@context"] == {"ex": SECOND}


async def test_events_that_agree_on_their_prefixes_share_the_document_context(
    client: Client,
) -> None:
    bound = [CONTEXT, {"ex": FIRST}]
    await capture_all(
        client,
        [
            document(object_event(**{"ex:grade": "A"}), context=bound),
            document(object_event(**{"ex:grade": "B"}), context=bound),
            document(object_event()),
        ],
    )
    body = await answer(client)
    assert body["@context"][1:] == [{"ex": FIRST}]
    assert all("@context" not in event for event in returned_events(body))


async def test_a_clashing_event_hashes_from_the_answer_to_its_event_id(client: Client) -> None:
    await capture_all(client, clashing_documents())
    body = await answer(client)
    namespaces = document_context(body)
    for event in returned_events(body):
        assert event_hash(event, namespaces) == event["eventID"]


async def test_an_answer_with_clashes_is_a_valid_query_document(client: Client) -> None:
    unbound = document(object_event(**{"ex:grade": "C"}))
    await capture_all(client, [*clashing_documents(), unbound])
    body = await answer(client)
    assert returned_events(body)[2]["@context"] == {"ex": None}
    assert DocumentValidator().validate_query_document(body) == []
