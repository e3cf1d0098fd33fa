"""An event ID names one event: conflicts are refused or reported, a hash ID must be the
hash of its event, and in multi-tenant installations identity is per account."""

import gzip
import sqlite3
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient

from api.service.app import create_app
from application.service.runtime import Tracepoint
from domain.epcis.event_hash import HASH_PREFIX, HASH_SUFFIX, event_hash
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import EventStore
from tests.conftest import AUTH, FIXTURES, make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events
from tests.fixtures.upgrade.make_store import event as old_event

Client = TestClient[Any, Any]


def new_id() -> str:
    return f"urn:uuid:{uuid.uuid4()}"


async def job(client: Client, response: Any) -> dict[str, Any]:
    answer = await client.get(response.headers["Location"], headers=AUTH)
    body: dict[str, Any] = await answer.json()
    return body


async def test_an_event_id_stored_with_other_content_is_a_409_conflict_on_rollback(
    client: Client,
) -> None:
    event_id = new_id()
    await capture(client, document(object_event(eventID=event_id)))
    other = object_event(eventID=event_id, bizStep="receiving")
    response = await capture(client, document(object_event(), other))
    assert response.status == 409
    body = await response.json()
    assert body["type"] == "epcisException:ResourceAlreadyExistsException"
    assert event_id in body["detail"]
    assert "epcisBody.eventList.1.eventID" in body["detail"]
    assert len(await events(client)) == 1  # not even the new first event


async def test_an_event_id_conflict_is_an_error_of_the_capture_job_on_proceed(
    client: Client,
) -> None:
    event_id = new_id()
    await capture(client, document(object_event(eventID=event_id)))
    other = object_event(eventID=event_id, bizStep="receiving")
    response = await capture(
        client, document(object_event(), other), **{"GS1-Capture-Error-Behaviour": "proceed"}
    )
    assert response.status == 201
    body = await job(client, response)
    assert (body["success"], body["eventsCaptured"], body["eventsRejected"]) == (False, 1, 1)
    assert body["errors"][0]["location"] == "epcisBody.eventList.1.eventID"
    assert event_id in body["errors"][0]["reason"]
    stored = await events(client, EQ_eventID=event_id)
    assert [e["bizStep"] for e in stored] == ["shipping"]


async def test_the_same_content_spelled_otherwise_is_already_present(client: Client) -> None:
    event_id = new_id()
    await capture(client, document(object_event(eventID=event_id, epcList=[SGTIN_URN])))
    again = object_event(
        eventID=event_id,
        epcList=[SGTIN_LINK],
        bizStep="urn:epcglobal:cbv:bizstep:shipping",
    )
    response = await capture(client, document(again))
    assert response.status == 201
    assert "0 new event(s); 1 already present" in (await response.json())["message"]
    assert len(await events(client)) == 1


SGTIN_URN = "urn:epc:id:sgtin:4012345.011111.987"
SGTIN_LINK = "https://id.gs1.org/01/04012345111118/21/987"


async def test_one_event_id_given_two_contents_in_one_document_is_a_conflict(
    client: Client,
) -> None:
    event_id = new_id()
    response = await capture(
        client,
        document(object_event(eventID=event_id), object_event(eventID=event_id)),
    )
    assert response.status == 409
    assert "epcisBody.eventList.1.eventID" in (await response.json())["detail"]
    assert await events(client) == []


async def test_a_hash_id_that_is_not_the_hash_of_the_event_is_refused(client: Client) -> None:
    real = object_event()
    forged = dict(real, eventID=event_hash(real), bizStep="destroying")
    response = await capture(client, document(forged))
    assert response.status == 400
    text = await response.text()
    assert text.startswith("EPCIS Document is invalid;")
    assert "epcisBody.eventList.0.eventID: The eventID is not the CBV 2.0 hash" in text
    assert event_hash(forged) in text
    assert await events(client) == []
    # So the real event, when it comes, is recorded as itself.
    response = await capture(client, document(real))
    assert "1 new event(s)" in (await response.json())["message"]


async def test_a_hash_id_that_is_the_hash_of_the_event_is_kept_in_any_case(
    client: Client,
) -> None:
    event = object_event()
    digest = event_hash(event).removeprefix(HASH_PREFIX).removesuffix(HASH_SUFFIX)
    given = HASH_PREFIX + digest.upper() + HASH_SUFFIX
    response = await capture(client, document(dict(event, eventID=given)))
    assert response.status == 201, await response.text()
    assert [e["eventID"] for e in await events(client)] == [given]


async def test_other_id_forms_are_taken_as_given(client: Client) -> None:
    event_id = "urn:uuid:6f2c7c56-0f6c-4b52-9fa0-9b1c0e3b2a11"
    await capture(client, document(object_event(eventID=event_id)))
    assert [e["eventID"] for e in await events(client)] == [event_id]


# Upgrades -----------------------------------------------------------------------------

#: A single-tenant store written by commit 0aa3c66 (see tests/fixtures/upgrade/).
OLD_STORE = FIXTURES / "upgrade" / "store-0aa3c66.sqlite.gz"
OLD_IDS = [
    "urn:uuid:00000000-0000-4000-8000-000000000001",
    "ni:///sha-256;68458df34a4d08526fd3877c850b337bf064228282f8efc257e03e251a32ac3f?ver=CBV2.0",
    "ni:///sha-256;69f77385b9a45d07089a8357eb5124b73bbc1ab9b620ebcdfdc40e712c522526?ver=CBV2.0",
]


def restore_old_store(database_url: str, tmp_path: Path) -> None:
    """The old store at `database_url`: the whole file on SQLite; on PostgreSQL its log,
    written before today's code first starts on it."""
    unpacked = tmp_path / "old.sqlite"
    unpacked.write_bytes(gzip.decompress(OLD_STORE.read_bytes()))
    url = DatabaseUrl.parse(database_url)
    if url.backend == "sqlite":
        Path(url.path).write_bytes(unpacked.read_bytes())
        return
    with sqlite3.connect(unpacked) as old:
        rows = old.execute(
            "SELECT originator_id, originator_version, topic, state FROM stored_events"
            " ORDER BY rowid"
        ).fetchall()
    store = EventStore(url)
    recorder: Any = store._app.recorder
    table = f'"{recorder.datastore.schema}"."{recorder.events_table_name}"'
    with recorder.datastore.transaction(commit=True) as cursor:
        for row in rows:
            cursor.execute(
                f"INSERT INTO {table} (originator_id, originator_version, topic, state)"
                " VALUES (%s, %s, %s, %s)",
                row,
            )
    store.close()


@pytest.fixture
async def upgraded(database_url: str, tmp_path: Path, aiohttp_client: Any) -> AsyncIterator[Client]:
    restore_old_store(database_url, tmp_path)
    service = Tracepoint(make_settings(database_url))
    await service.start()
    try:
        client = await aiohttp_client(create_app(service, manage_lifecycle=False))
        # The old store's administrator has no static token of this run: sign in.
        login = await client.post(
            "/auth/login",
            json={"email": "admin@example.com", "password": "correct horse battery staple"},
        )
        session = {"Authorization": f"Bearer {(await login.json())['data']['access_token']}"}
        # The EPCIS interface takes static tokens: give the administrator one.
        static = f"upgrade-{uuid.uuid4()}"
        made = await client.patch("/users/me", json={"token": static}, headers=session)
        assert made.status == 200, await made.text()
        client.session.headers["Authorization"] = f"Bearer {static}"
        yield client
    finally:
        await service.stop()


async def signed_in_events(client: Client, **params: str) -> list[dict[str, Any]]:
    response = await client.get("/v2/epcis/events", params=params)
    assert response.status == 200, await response.text()
    body = await response.json()
    result: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return result


async def signed_in_capture(client: Client, body: Any) -> Any:
    return await client.post("/v2/epcis/capture", json=body)


async def test_an_upgraded_store_keeps_its_events_and_their_ids(upgraded: Client) -> None:
    assert sorted(e["eventID"] for e in await signed_in_events(upgraded)) == sorted(OLD_IDS)


async def test_an_upgraded_store_knows_its_events_when_they_come_again(upgraded: Client) -> None:
    again = document(old_event(1, eventID=OLD_IDS[0]), old_event(2))
    response = await signed_in_capture(upgraded, again)
    assert response.status == 201, await response.text()
    assert "0 new event(s); 2 already present" in (await response.json())["message"]


async def test_an_upgraded_store_records_a_declaration_of_an_old_event(upgraded: Client) -> None:
    declaration = {"declarationTime": "2024-03-05T10:00:00Z", "reason": "did_not_occur"}
    response = await signed_in_capture(
        upgraded, document(old_event(2, errorDeclaration=declaration))
    )
    assert "1 new error declaration(s)" in (await response.json())["message"]
    records = await signed_in_events(upgraded, EQ_eventID=OLD_IDS[1])
    assert ["errorDeclaration" in e for e in records] == [False, True]


def test_the_upgrade_fixture_was_written_before_declarations_were_indexed() -> None:
    data = gzip.decompress(OLD_STORE.read_bytes())
    assert b"declaration_time" not in data
    assert OLD_IDS[0].encode() in data


async def test_an_event_id_names_a_resource_under_events(client: Client) -> None:
    event = object_event()
    await capture(client, document(event))
    path = "/v2/epcis/events/" + quote(event_hash(event), safe="")
    response = await client.get(path, headers=AUTH)
    assert response.status == 200, await response.text()
    body = await response.json()
    assert len(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == 1


async def test_an_unknown_event_id_is_a_404(client: Client) -> None:
    response = await client.get(f"/v2/epcis/events/{new_id()}", headers=AUTH)
    assert response.status == 404
    assert (await response.json())["type"] == "epcisException:NoSuchResourceException"
