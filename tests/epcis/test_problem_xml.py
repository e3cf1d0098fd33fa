"""Errors of XML callers: RFC 7807 problem XML (`application/problem+xml`, binding §5.4 9),
with the EPCIS exception type the JSON answer has; the §7 invalid-document text stays."""

from typing import Any

import pytest
from lxml import etree

from tests.access.helpers import Client
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture

PROBLEM = "{urn:ietf:rfc:7807}"
XML = {**AUTH, "Accept": "application/xml"}


async def _problem(response: Any) -> dict[str, str]:
    assert response.content_type == "application/problem+xml", await response.text()
    root = etree.fromstring(await response.read())
    assert root.tag == f"{PROBLEM}problem"
    return {child.tag.removeprefix(PROBLEM): child.text for child in root}


async def test_a_query_parameter_error_is_problem_xml_for_an_xml_caller(client: Client) -> None:
    response = await client.get("/v2/epcis/events?GE_eventTime=yesterday", headers=XML)
    assert response.status == 400
    problem = await _problem(response)
    assert problem["type"] == "epcisException:QueryParameterException"
    assert problem["title"] == "Bad request"
    assert problem["status"] == "400"
    assert "GE_eventTime" in problem["detail"]
    assert problem["instance"] == "/v2/epcis/events"
    assert list(problem) == ["type", "title", "status", "detail", "instance"]


async def test_an_unknown_event_is_a_404_in_problem_xml(client: Client) -> None:
    response = await client.get("/v2/epcis/events/urn:uuid:nothing-here", headers=XML)
    assert response.status == 404
    problem = await _problem(response)
    assert problem["type"] == "epcisException:NoSuchResourceException"
    assert problem["instance"] == "/v2/epcis/events/urn:uuid:nothing-here"


async def test_a_query_too_large_is_a_413_in_problem_xml(client: Client) -> None:
    await capture(client, document(object_event(), object_event()))
    response = await client.get("/v2/epcis/events?maxEventCount=1", headers=XML)
    assert response.status == 413
    assert (await _problem(response))["type"] == "epcisException:QueryTooLargeException"


async def test_xml_asked_of_a_json_only_resource_is_a_406_in_problem_xml(client: Client) -> None:
    response = await client.get("/v2/epcis/eventTypes", headers={**AUTH, "Accept": "text/xml"})
    assert response.status == 406
    assert (await _problem(response))["type"] == "epcisException:NotAcceptableException"


async def test_a_missing_token_is_a_401_in_problem_xml(client: Client) -> None:
    response = await client.get("/v2/epcis/events", headers={"Accept": "application/xml"})
    assert response.status == 401
    assert (await _problem(response))["type"] == "epcisException:SecurityException"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="tracepoint"'


async def test_problem_xml_asked_by_name_is_answered(client: Client) -> None:
    headers = {**AUTH, "Accept": "application/problem+xml"}
    response = await client.get("/v2/epcis/nowhere", headers=headers)
    assert response.status == 404
    assert (await _problem(response))["type"] == "epcisException:NoSuchResourceException"


@pytest.mark.parametrize(
    "accept", [None, "*/*", "application/json", "application/xml, application/json"]
)
async def test_errors_stay_problem_json_unless_xml_is_preferred(
    client: Client, accept: str | None
) -> None:
    headers = dict(AUTH) if accept is None else {**AUTH, "Accept": accept}
    response = await client.get("/v2/epcis/events?GE_eventTime=yesterday", headers=headers)
    assert response.status == 400
    assert response.content_type == "application/problem+json"
    body = await response.json(content_type=None)
    assert body["type"] == "epcisException:QueryParameterException"
    assert body["instance"] == "/v2/epcis/events"


async def test_xml_weighed_above_json_gets_problem_xml(client: Client) -> None:
    headers = {**AUTH, "Accept": "application/json;q=0.5, application/xml"}
    response = await client.get("/v2/epcis/events?GE_eventTime=yesterday", headers=headers)
    assert (await _problem(response))["status"] == "400"


async def test_a_detail_quoting_characters_xml_cannot_hold_stays_well_formed(
    client: Client,
) -> None:
    response = await client.get("/v2/epcis/events?EQ_bizStep%01x=1", headers=XML)
    assert response.status == 400
    problem = await _problem(response)
    assert "\ufffd" in problem["detail"]


async def test_the_invalid_document_answer_stays_text_for_an_xml_caller(client: Client) -> None:
    response = await capture(client, {"type": "EPCISDocument"}, Accept="application/xml")
    assert response.status == 400
    assert response.content_type == "text/plain"
    assert (await response.text()).startswith("EPCIS Document is invalid;")


async def test_a_capture_conflict_is_problem_xml_for_an_xml_caller(client: Client) -> None:
    event = object_event(eventID="urn:uuid:6a7e4fc4-bb5f-4a4c-9cf3-3f7c2e0d3a10")
    assert (await capture(client, document(event))).status == 201
    changed = {**event, "bizStep": "receiving"}
    response = await capture(client, document(changed), Accept="application/xml")
    assert response.status == 409
    problem = await _problem(response)
    assert problem["type"] == "epcisException:ResourceAlreadyExistsException"
    assert response.headers["GS1-EPCIS-Capture-Limit"]
