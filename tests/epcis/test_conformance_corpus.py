"""The OpenEPCIS conformance corpus through the API: capture every valid document and read
every event back equal; reject every invalid one and store nothing."""

from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp.test_utils import TestClient

from domain.epcis.event_hash import document_context, document_ignore_fields, event_hash
from domain.epcis.event_identity import hash_mismatch
from infrastructure.epcis_schema import DocumentValidator
from tests.conftest import AUTH, FIXTURES
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]
CORPUS = FIXTURES / "openepcis" / "Capture"
VALID = sorted((CORPUS / "Documents").glob("*.json"))
INVALID = sorted((CORPUS / "Invalid").glob("*.json"))

#: "Valid" samples that break a rule of the EPCIS 2.0 standard itself; the schema tests in
#: tests/epcis/test_schema_conformance.py name the rule each breaks.
BREAKS_THE_STANDARD = {
    "SensorData_with_combined_events.json",
    "TransactionEvent_with_userExtensions.json",
}

CONFORMING = [p for p in VALID if p.name not in BREAKS_THE_STANDARD]


def load(path: Path) -> Any:
    """The document as the corpus has it, but with true event hashes: most of its
    `ni:///` ids are examples copied between documents, not hashes of their events, and
    the repository refuses an id that claims a hash its event does not have."""
    doc = orjson.loads(path.read_bytes())
    namespaces, ignore = document_context(doc), document_ignore_fields(doc)
    for event in doc["epcisBody"]["eventList"]:
        event_id = event.get("eventID")
        if isinstance(event_id, str) and hash_mismatch(event_id, event, namespaces, ignore):
            event["eventID"] = event_hash(event, namespaces, ignore_fields=ignore)
    return doc


@pytest.mark.parametrize("path", CONFORMING, ids=lambda p: p.name)
async def test_every_event_of_a_valid_document_is_read_back_equal(
    client: Client, path: Path
) -> None:
    doc = load(path)
    response = await capture(client, doc)
    assert response.status == 201, await response.text()
    stored = await events(client, perPage="1000")
    # recordTime is the repository's to assign: one sent by the client is replaced.
    originals = [
        {k: v for k, v in event.items() if k != "recordTime"}
        for event in doc["epcisBody"]["eventList"]
    ]
    for original in originals:
        matches = []
        for returned in stored:
            candidate = dict(returned)
            assert candidate.pop("recordTime")
            if "eventID" not in original and not candidate.pop("eventID").startswith(
                "ni:///sha-256;"
            ):
                continue  # an event that brought its own ID is not this one
            if candidate == original:
                matches.append(returned)
        assert len(matches) == 1, f"{path.name}: event not read back equal: {original}"
    assert len(stored) == len({orjson.dumps(e, option=orjson.OPT_SORT_KEYS) for e in originals})


@pytest.mark.parametrize("path", CONFORMING, ids=lambda p: p.name)
async def test_the_query_response_for_a_valid_document_is_a_valid_query_document(
    client: Client, path: Path
) -> None:
    await capture(client, load(path))
    response = await client.get("/v2/epcis/events", params={"perPage": "1000"}, headers=AUTH)
    assert DocumentValidator().validate_query_document(await response.json()) == []


@pytest.mark.parametrize(
    "path",
    INVALID + [p for p in VALID if p.name in BREAKS_THE_STANDARD],
    ids=lambda p: p.name,
)
async def test_an_invalid_document_is_rejected_and_nothing_is_stored(
    client: Client, path: Path
) -> None:
    response = await capture(client, load(path))
    assert response.status == 400
    assert response.content_type == "text/plain"
    text = await response.text()
    assert text.startswith("EPCIS Document is invalid;\n")
    assert len(text.splitlines()) >= 2
    assert await events(client) == []


def test_the_corpus_is_present() -> None:
    assert len(VALID) == 38
    assert len(INVALID) == 15


async def test_a_corpus_document_whose_ids_are_not_the_hashes_of_its_events_is_refused(
    client: Client,
) -> None:
    path = CORPUS / "Documents" / "AggregationEvent.json"
    doc = orjson.loads(path.read_bytes())
    response = await capture(client, doc)
    assert response.status == 400
    text = await response.text()
    assert "epcisBody.eventList.0.eventID: The eventID is not the CBV 2.0 hash" in text
    assert load(path)["epcisBody"]["eventList"][0]["eventID"] in text
    assert await events(client) == []
