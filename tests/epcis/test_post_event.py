"""`POST /v2/epcis/events`: capturing one event sent alone."""

from typing import Any
from urllib.parse import quote

import orjson

from domain.epcis.event_hash import event_hash
from tests.access.helpers import Client, user_with
from tests.conftest import AUTH
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture, events


async def post_event(client: Client, body: Any, token: str | None = None) -> Any:
    auth = AUTH if token is None else {"Authorization": f"Bearer {token}"}
    return await client.post(
        "/v2/epcis/events",
        data=orjson.dumps(body),
        headers={**auth, "Content-Type": "application/ld+json"},
    )


def alone(event: dict[str, Any], context: list[Any] | None = None) -> dict[str, Any]:
    return {"@context": context or [CONTEXT], **event}


async def test_an_event_is_created_at_the_location_of_its_id(client: Client) -> None:
    event = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000f1")
    response = await post_event(client, alone(event))
    assert response.status == 201, await response.text()
    location = response.headers["Location"]
    assert location == "/v2/epcis/events/urn%3Auuid%3A00000000-0000-4000-8000-0000000000f1"
    found = await client.get(location, headers=AUTH)
    assert found.status == 200


async def test_an_event_without_an_id_is_located_by_its_hash(client: Client) -> None:
    event = object_event()
    response = await post_event(client, alone(event))
    assert response.status == 201, await response.text()
    assert response.headers["Location"] == "/v2/epcis/events/" + quote(event_hash(event), safe="")
    [stored] = await events(client)
    assert stored["eventID"] == event_hash(event)


async def test_the_same_event_again_is_answered_200_and_stored_once(client: Client) -> None:
    event = alone(object_event())
    first = await post_event(client, event)
    again = await post_event(client, event)
    assert (first.status, again.status) == (201, 200)
    assert again.headers["Location"] == first.headers["Location"]
    assert len(await events(client)) == 1


async def test_an_id_naming_an_event_with_other_content_is_409(client: Client) -> None:
    event_id = "urn:uuid:00000000-0000-4000-8000-0000000000f2"
    await post_event(client, alone(object_event(eventID=event_id)))
    response = await post_event(client, alone(object_event(eventID=event_id, action="ADD")))
    assert response.status == 409
    body = await response.json()
    assert body["type"] == "epcisException:ResourceAlreadyExistsException"
    assert f"eventID: The event ID {event_id} already names" in body["detail"]


async def test_an_error_declaration_of_a_stored_event_is_created(client: Client) -> None:
    event = object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000f3")
    await post_event(client, alone(event))
    declared = {**event, "errorDeclaration": {"declarationTime": "2024-03-02T00:00:00Z"}}
    response = await post_event(client, alone(declared))
    assert response.status == 201, await response.text()
    assert len(await events(client, EQ_eventID=event["eventID"])) == 2


async def test_an_invalid_event_is_400_with_the_places_in_the_event(client: Client) -> None:
    response = await post_event(client, alone(object_event(action="SHIPPING")))
    assert response.status == 400
    text = await response.text()
    assert text.startswith("EPCIS Document is invalid;")
    assert "\naction: 'SHIPPING' is not one of" in text
    assert "epcisBody" not in text


async def test_a_document_is_refused_with_the_way_to_capture_it(client: Client) -> None:
    response = await post_event(client, document(object_event()))
    assert response.status == 400
    assert "POST /capture takes documents" in await response.text()
    assert await events(client) == []


async def test_an_event_keeps_the_meaning_its_own_context_gave_its_curies(
    client: Client,
) -> None:
    context = [CONTEXT, {"ex": "https://vocabulary.example.com/"}]
    response = await post_event(client, alone(object_event(bizStep="ex:checking"), context))
    assert response.status == 201, await response.text()
    found = await events(client, EQ_bizStep="https://vocabulary.example.com/checking")
    assert [e["bizStep"] for e in found] == ["ex:checking"]


async def test_a_reader_without_the_right_to_create_is_forbidden(client: Client) -> None:
    reader = await user_with(client, {"collection": "epcis_event", "action": "read"})
    response = await post_event(client, alone(object_event()), reader.token)
    assert response.status == 403
    assert await events(client) == []


async def test_capture_and_post_events_store_one_event_once(client: Client) -> None:
    event = object_event()
    await capture(client, document(event))
    response = await post_event(client, alone(event))
    assert response.status == 200


async def test_an_xml_document_is_refused_with_the_way_to_capture_it(client: Client) -> None:
    xml = (
        '<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0"'
        ' creationDate="2024-03-01T10:00:00Z"><EPCISBody><EventList><ObjectEvent>'
        "<eventTime>2024-03-01T10:00:00.000+01:00</eventTime>"
        "<eventTimeZoneOffset>+01:00</eventTimeZoneOffset>"
        "<epcList><epc>urn:epc:id:sgtin:4012345.011111.1</epc></epcList>"
        "<action>OBSERVE</action></ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>"
    )
    response = await client.post(
        "/v2/epcis/events",
        data=xml.encode(),
        headers={**AUTH, "Content-Type": "application/xml"},
    )
    assert response.status == 400
    assert "POST /capture takes documents" in await response.text()
    assert await events(client) == []
