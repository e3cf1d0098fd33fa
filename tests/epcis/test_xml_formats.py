"""`GS1-CBV-XML-Format` and `GS1-EPC-Format` on XML answers."""

from typing import Any

import pytest
from lxml import etree

from tests.access.helpers import Client
from tests.conftest import AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.streams import listening_stream, next_message
from tests.epcis.test_capture import capture

WEB_URI = "https://ref.gs1.org/cbv/BizStep-receiving"
URN = "urn:epcglobal:cbv:bizstep:receiving"
EVENTS = [
    object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d1", bizStep="receiving"),
    object_event(eventID="urn:uuid:00000000-0000-4000-8000-0000000000d2", bizStep=WEB_URI),
]


async def xml_events(client: Client, **headers: str) -> list[Any]:
    response = await client.get(
        "/v2/epcis/events", headers={**AUTH, "Accept": "application/xml", **headers}
    )
    assert response.status == 200, await response.text()
    assert response.content_type == "application/xml"
    root = etree.fromstring(await response.read())
    return list(root.findall("EPCISBody/{*}QueryResults/resultsBody/EventList/ObjectEvent"))


@pytest.fixture
async def stored(client: Client) -> Client:
    response = await capture(client, document(*EVENTS))
    assert response.status == 201, await response.text()
    return client


@pytest.mark.parametrize(
    ("cbv_format", "expected"),
    [
        ("Always_URN", [URN, URN]),
        ("Always_Web_URI", [WEB_URI, WEB_URI]),
        ("Never_Translates", [URN, WEB_URI]),
        (None, [URN, WEB_URI]),
    ],
)
async def test_cbv_values_are_written_in_the_format_asked_for(
    stored: Client, cbv_format: str | None, expected: list[str]
) -> None:
    headers = {} if cbv_format is None else {"GS1-CBV-XML-Format": cbv_format}
    written = await xml_events(stored, **headers)
    assert [event.findtext("bizStep") for event in written] == expected


async def test_an_xml_answer_names_the_cbv_format_it_applied(stored: Client) -> None:
    response = await stored.get(
        "/v2/epcis/events",
        headers={**AUTH, "Accept": "text/xml", "GS1-CBV-XML-Format": "always_urn"},
    )
    assert response.headers["GS1-CBV-XML-Format"] == "Always_URN"


async def test_epcs_of_xml_answers_follow_the_epc_format(stored: Client) -> None:
    written = await xml_events(stored, **{"GS1-EPC-Format": "Always_GS1_Digital_Link"})
    assert written[0].findtext("epcList/epc").startswith("https://id.gs1.org/01/04012345111118/21/")


@pytest.mark.parametrize(
    ("cbv_format", "captured", "expected"),
    [("Always_Web_URI", "receiving", WEB_URI), ("Always_URN", WEB_URI, URN)],
)
async def test_a_websocket_sent_xml_writes_cbv_values_in_the_format_asked_for(
    tracepoint: Any,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
    cbv_format: str,
    captured: str,
    expected: str,
) -> None:
    await client.post(
        "/v2/epcis/queries",
        json={"name": "receiving", "query": {"EQ_bizStep": ["receiving"]}},
        headers=AUTH,
    )
    headers = {**AUTH, "Accept": "application/xml", "GS1-CBV-XML-Format": cbv_format}
    async with listening_stream(tracepoint, client, monkeypatch, "receiving", headers) as socket:
        await capture(client, document(object_event(bizStep=captured)))
        root = etree.fromstring((await next_message(socket)).encode())
    assert root.findtext(".//ObjectEvent/bizStep") == expected
