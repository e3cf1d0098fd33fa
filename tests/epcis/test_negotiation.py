"""Content negotiation: what a request may ask for, and the 406 for what cannot be served."""

import pytest

from tests.access.helpers import Client
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture


async def status(client: Client, path: str, **headers: str) -> int:
    response = await client.get(path, headers={**AUTH, **headers})
    if response.status == 406:
        text = await response.text()
        assert "epcisException:NotAcceptableException" in text
        assert "406" in text
    return response.status


@pytest.mark.parametrize(
    "accept",
    [
        "application/json",
        "application/ld+json",
        "*/*",
        "application/*",
        "text/csv, application/json;q=0.5",
        "application/json; charset=utf-8",
    ],
)
async def test_json_in_any_spelling_is_served(client: Client, accept: str) -> None:
    assert await status(client, "/v2/epcis/eventTypes", Accept=accept) == 200


@pytest.mark.parametrize("accept", ["text/csv", "application/json;q=0", "application/problem+json"])
async def test_an_accept_naming_no_served_type_is_406(client: Client, accept: str) -> None:
    assert await status(client, "/v2/epcis/events", Accept=accept) == 406


@pytest.mark.parametrize("accept", ["application/xml", "text/xml"])
async def test_xml_is_servable_where_the_answer_is_a_query_document(
    client: Client, accept: str
) -> None:
    assert await status(client, "/v2/epcis/events", Accept=accept) == 200


async def test_xml_is_406_where_the_answer_has_no_xml_form(client: Client) -> None:
    assert await status(client, "/v2/epcis/eventTypes", Accept="application/xml") == 406


async def test_a_write_is_not_refused_for_its_accept_header(client: Client) -> None:
    response = await capture(client, document(object_event()), Accept="application/xml")
    assert response.status == 201


@pytest.mark.parametrize("value", ["2.0.0", "2.0", "2", "2.0.1"])
async def test_any_2_0_version_is_served(client: Client, value: str) -> None:
    assert await status(client, "/v2/epcis/events", **{"GS1-EPCIS-Version": value}) == 200


@pytest.mark.parametrize("value", ["1.2", "2.1", "3.0.0", "two"])
async def test_another_epcis_version_is_406(client: Client, value: str) -> None:
    assert await status(client, "/v2/epcis/events", **{"GS1-EPCIS-Version": value}) == 406


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [("1.2", "2.0", 200), ("2.0.0", "2.0.0", 200), ("2.1", "3.0", 406), ("1.0", "1.2", 406)],
)
async def test_a_version_range_must_include_2_0(
    client: Client, low: str, high: str, expected: int
) -> None:
    headers = {"GS1-EPCIS-Min": low, "GS1-EPCIS-Max": high}
    assert await status(client, "/v2/epcis/events", **headers) == expected


async def test_another_cbv_version_is_406(client: Client) -> None:
    assert await status(client, "/v2/epcis/epcs", **{"GS1-CBV-Version": "1.2"}) == 406
    assert await status(client, "/v2/epcis/epcs", **{"GS1-CBV-Min": "2.1"}) == 406


async def test_a_capture_of_another_epcis_version_is_406(client: Client) -> None:
    response = await capture(client, document(object_event()), **{"GS1-EPCIS-Version": "1.2"})
    assert response.status == 406


@pytest.mark.parametrize("header", ["GS1-EPC-Format", "GS1-CBV-XML-Format"])
async def test_a_format_the_binding_does_not_define_is_406(client: Client, header: str) -> None:
    assert await status(client, "/v2/epcis/events", **{header: "Always_Something"}) == 406


async def test_an_unknown_path_stays_404_whatever_it_asks_for(client: Client) -> None:
    assert await status(client, "/v2/epcis/nowhere", Accept="text/csv") == 404
