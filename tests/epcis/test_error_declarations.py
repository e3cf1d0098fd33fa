"""Error declarations (EPCIS 2.0 §7.4.1.2): recorded as new records beside the event they
retract, returned wherever the event is, counted apart, queryable, delivered, replayed."""

import uuid
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint
from tests.conftest import AS_CAPTURED, AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture, events

Client = TestClient[Any, Any]

DECLARATION = {
    "declarationTime": "2024-03-05T10:00:00.000Z",
    "reason": "did_not_occur",
    "correctiveEventIDs": ["urn:uuid:404d95fc-9457-4a51-bd6a-0bba133845a8"],
}


def declared(event: dict[str, Any], **declaration: Any) -> dict[str, Any]:
    """The event with an error declaration (DECLARATION, changed by the arguments)."""
    return {**event, "errorDeclaration": {**DECLARATION, **declaration}}


async def message(response: Any) -> str:
    assert response.status == 201, await response.text()
    text: str = (await response.json())["message"]
    return text


@pytest.fixture
async def original(client: Client) -> dict[str, Any]:
    """A stored event with its own event ID."""
    event = object_event(eventID=f"urn:uuid:{uuid.uuid4()}")
    await capture(client, document(event))
    return event


async def test_a_declaration_is_recorded_beside_the_untouched_event(
    client: Client, original: dict[str, Any]
) -> None:
    said = await message(await capture(client, document(declared(original))))
    assert said.startswith("Captured 0 new event(s); 1 new error declaration(s); 0 already")
    first, second = await events(client)
    assert first["eventID"] == second["eventID"] == original["eventID"]
    assert "errorDeclaration" not in first
    assert second["errorDeclaration"] == DECLARATION
    assert second["recordTime"] > first["recordTime"]


async def test_a_declaration_without_an_event_id_finds_the_event_by_its_hash(
    client: Client,
) -> None:
    event = object_event()
    await capture(client, document(event))
    await capture(client, document(declared(event)))
    first, second = await events(client)
    assert first["eventID"] == second["eventID"]
    assert "errorDeclaration" in second


async def test_the_capture_job_counts_declarations_apart(
    client: Client, original: dict[str, Any]
) -> None:
    response = await capture(client, document(declared(original), object_event()))
    job = await (await client.get(response.headers["Location"], headers=AUTH)).json()
    assert (job["eventsCaptured"], job["errorDeclarationsCaptured"]) == (1, 1)
    assert (job["eventsAlreadyPresent"], job["eventsRejected"]) == (0, 0)


async def test_the_same_declaration_again_is_already_present(
    client: Client, original: dict[str, Any]
) -> None:
    await capture(client, document(declared(original)))
    said = await message(await capture(client, document(declared(original))))
    assert "0 new event(s); 1 already present" in said
    assert len(await events(client)) == 2


async def test_another_declaration_of_the_event_is_recorded_too(
    client: Client, original: dict[str, Any]
) -> None:
    await capture(client, document(declared(original)))
    said = await message(
        await capture(client, document(declared(original, reason="incorrect_data")))
    )
    assert "1 new error declaration(s)" in said
    assert len(await events(client)) == 3


async def test_a_declaration_whose_event_differs_from_the_stored_one_is_a_conflict(
    client: Client, original: dict[str, Any]
) -> None:
    other = declared({**original, "bizStep": "receiving"})
    response = await capture(client, document(other))
    assert response.status == 409
    assert (await response.json())["type"] == "epcisException:ResourceAlreadyExistsException"
    assert len(await events(client)) == 1


async def test_a_declaration_of_an_event_never_stored_here_is_recorded(client: Client) -> None:
    # Partners send declarations of events this repository may never have received.
    event = object_event(eventID=f"urn:uuid:{uuid.uuid4()}")
    assert "1 new error declaration(s)" in await message(
        await capture(client, document(declared(event)))
    )
    # The event itself, arriving later, is recorded as well: the journal keeps both.
    assert "1 new event(s)" in await message(await capture(client, document(event)))
    assert ["errorDeclaration" in e for e in await events(client)] == [True, False]


async def test_an_event_and_its_declaration_in_one_document_are_both_recorded(
    client: Client,
) -> None:
    event = object_event(eventID=f"urn:uuid:{uuid.uuid4()}")
    said = await message(await capture(client, document(event, declared(event))))
    assert said.startswith("Captured 1 new event(s); 1 new error declaration(s)")
    assert ["errorDeclaration" in e for e in await events(client)] == [False, True]


async def test_the_event_id_finds_the_event_and_its_declarations(
    client: Client, original: dict[str, Any]
) -> None:
    await capture(client, document(declared(original), object_event()))
    by_parameter = await events(client, EQ_eventID=original["eventID"])
    assert ["errorDeclaration" in e for e in by_parameter] == [False, True]
    response = await client.get(f"/v2/epcis/events/{original['eventID']}", headers=AS_CAPTURED)
    assert response.status == 200
    body = await response.json()
    assert body["epcisBody"]["queryResults"]["resultsBody"]["eventList"] == by_parameter


async def test_a_content_query_that_finds_the_event_finds_its_declaration(
    client: Client, original: dict[str, Any]
) -> None:
    await capture(client, document(declared(original)))
    found = await events(client, MATCH_epc=original["epcList"][0], EQ_bizStep="shipping")
    assert ["errorDeclaration" in e for e in found] == [False, True]


async def test_page_tokens_page_through_events_and_declarations(
    client: Client, original: dict[str, Any]
) -> None:
    await capture(client, document(declared(original)))
    first = await client.get("/v2/epcis/events", params={"perPage": "1"}, headers=AUTH)
    link = first.headers["Link"]
    token = link[link.index("nextPageToken=") + len("nextPageToken=") : link.index(">")]
    second = await events(client, perPage="1", nextPageToken=token)
    assert "errorDeclaration" in second[0]


class TestDeclarationParameters:
    """The five error-declaration parameters, on the query tables' indexes."""

    @pytest.fixture
    async def stored(self, client: Client) -> list[dict[str, Any]]:
        plain = object_event(eventID="urn:uuid:00000000-0000-4000-8000-00000000000a")
        early = object_event(eventID="urn:uuid:00000000-0000-4000-8000-00000000000b")
        late = object_event(eventID="urn:uuid:00000000-0000-4000-8000-00000000000c")
        records = [
            plain,
            early,
            late,
            declared(early, declarationTime="2024-03-02T00:00:00Z", reason="did_not_occur"),
            declared(
                late,
                declarationTime="2024-03-04T00:00:00Z",
                reason="urn:epcglobal:cbv:er:incorrect_data",
                correctiveEventIDs=["urn:uuid:00000000-0000-4000-8000-0000000000ff"],
            ),
        ]
        await capture(client, document(*records))
        return records

    @staticmethod
    def ids(found: list[dict[str, Any]]) -> list[str]:
        return [e["eventID"][-1] for e in found if "errorDeclaration" in e] + [
            "plain" for e in found if "errorDeclaration" not in e
        ]

    @pytest.mark.parametrize("value", ["true", "1", ""])
    async def test_exists_error_declaration_selects_declarations(
        self, client: Client, stored: Any, value: str
    ) -> None:
        assert self.ids(await events(client, EXISTS_errorDeclaration=value)) == ["b", "c"]

    async def test_exists_error_declaration_false_selects_everything(
        self, client: Client, stored: Any
    ) -> None:
        assert len(await events(client, EXISTS_errorDeclaration="false")) == 5

    @pytest.mark.parametrize("spelling", ["errorDeclarationTime", "errorDeclaration_Time"])
    async def test_declaration_time_bounds(
        self, client: Client, stored: Any, spelling: str
    ) -> None:
        after = await events(client, **{f"GE_{spelling}": "2024-03-03T00:00:00Z"})
        before = await events(client, **{f"LT_{spelling}": "2024-03-03T00:00:00Z"})
        assert (self.ids(after), self.ids(before)) == (["c"], ["b"])

    @pytest.mark.parametrize(
        "reason",
        [
            "incorrect_data",
            "urn:epcglobal:cbv:er:incorrect_data",
            "https://ref.gs1.org/cbv/ER-incorrect_data",
        ],
    )
    async def test_error_reason_in_every_spelling(
        self, client: Client, stored: Any, reason: str
    ) -> None:
        assert self.ids(await events(client, EQ_errorReason=reason)) == ["c"]

    async def test_corrective_event_id(self, client: Client, stored: Any) -> None:
        found = await events(
            client, EQ_correctiveEventID="urn:uuid:00000000-0000-4000-8000-0000000000ff"
        )
        assert self.ids(found) == ["c"]

    async def test_a_named_query_uses_them_too(self, client: Client, stored: Any) -> None:
        response = await client.post(
            "/v2/epcis/queries",
            json={"name": "retracted", "query": {"EQ_errorReason": ["did_not_occur"]}},
            headers=AUTH,
        )
        assert response.status == 201, await response.text()
        answer = await client.get("/v2/epcis/queries/retracted/events", headers=AUTH)
        body = await answer.json()
        assert self.ids(body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]) == ["b"]

    async def test_they_are_answered_from_indexes(
        self, tracepoint: Tracepoint, stored: Any
    ) -> None:
        from domain.epcis.event_query import parse_event_query
        from projections.epcis.event_conditions import build_where
        from projections.epcis.terms import TermIds

        database = tracepoint.database
        postgres = database.dialect.name == "postgresql"
        for params in (
            {"GE_errorDeclarationTime": ["2024-03-03T00:00:00Z"]},
            {"EQ_errorReason": ["did_not_occur"]},
            {"EQ_correctiveEventID": ["urn:uuid:00000000-0000-4000-8000-0000000000ff"]},
            {"EXISTS_errorDeclaration": ["true"]},
        ):
            args: list[Any] = []
            explain = "EXPLAIN" if postgres else "EXPLAIN QUERY PLAN"
            with database.transaction(write=False) as conn:
                query = parse_event_query(params)
                where = " AND ".join(build_where(TermIds(conn), query, args))
                if postgres:
                    conn.execute("SET LOCAL enable_seqscan = off")
                plan = " ".join(
                    str(row[-1])
                    for row in conn.fetchall(
                        f"{explain} SELECT e.position FROM epcis_events e WHERE {where}", args
                    )
                )
            assert "declaration" in plan or "error_reason" in plan or "corrections" in plan, (
                params,
                plan,
            )
