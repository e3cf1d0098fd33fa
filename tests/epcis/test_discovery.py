"""Discovery: `OPTIONS` on every EPCIS path, with the binding's headers."""

from importlib.metadata import version

import pytest

from tests.access.helpers import Client, user_with
from tests.conftest import AUTH
from tests.epcis.documents import CONTEXT, document, object_event
from tests.epcis.test_capture import capture

WITH_EXTENSIONS = [CONTEXT, {"ex": "https://vocabulary.example.com/"}]


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/v2/epcis", "OPTIONS, GET, HEAD"),
        ("/v2/epcis/events", "OPTIONS, GET, HEAD, POST"),
        ("/v2/epcis/events/urn:uuid:1", "OPTIONS, GET, HEAD"),
        ("/v2/epcis/capture", "OPTIONS, GET, POST"),
        ("/v2/epcis/queries", "OPTIONS, GET, POST"),
        ("/v2/epcis/queries/receipts", "OPTIONS, GET, DELETE"),
        ("/v2/epcis/epcs", "OPTIONS, GET, HEAD"),
        ("/v2/epcis/bizSteps/shipping", "OPTIONS, GET, HEAD"),
        ("/v2/epcis/readPoints/urn:epc:id:sgln:4012345.00001.0/events", "OPTIONS, GET, HEAD"),
    ],
)
async def test_options_answers_204_with_the_methods_of_the_path(
    client: Client, path: str, allow: str
) -> None:
    response = await client.options(path, headers=AUTH)
    assert response.status == 204
    assert response.headers["Allow"] == allow


async def test_options_states_versions_formats_and_vendor_version(client: Client) -> None:
    response = await client.options("/v2/epcis/events", headers=AUTH)
    for name in ("EPCIS", "CBV"):
        for header in (f"GS1-{name}-Version", f"GS1-{name}-Min", f"GS1-{name}-Max"):
            assert response.headers[header] == "2.0.0"
    assert response.headers["GS1-EPC-Format"] == (
        "No_Preference, Always_GS1_Digital_Link, Always_EPC_URN, Never_Translates"
    )
    assert response.headers["GS1-CBV-XML-Format"] == (
        "No_Preference, Always_Web_URI, Always_URN, Never_Translates"
    )
    assert response.headers["GS1-Vendor-Version"] == version("tracepoint")


async def test_options_on_capture_keeps_its_limits_beside_the_discovery_headers(
    client: Client,
) -> None:
    response = await client.options("/v2/epcis/capture", headers=AUTH)
    assert response.status == 204
    assert response.headers["GS1-Capture-Error-Behaviour"] == "rollback, proceed"
    assert response.headers["GS1-EPCIS-Version"] == "2.0.0"


async def test_options_needs_no_token(client: Client) -> None:
    response = await client.options("/v2/epcis/events")
    assert response.status == 204
    assert "Allow" in response.headers


async def test_options_on_a_path_no_route_serves_is_404(client: Client) -> None:
    response = await client.options("/v2/epcis/nowhere", headers=AUTH)
    assert response.status == 404
    assert (await response.json())["type"] == "epcisException:NoSuchResourceException"


async def test_options_on_a_value_does_not_tell_whether_it_is_stored(client: Client) -> None:
    await capture(client, document(object_event(bizStep="shipping")))
    stored = await client.options("/v2/epcis/bizSteps/shipping")
    absent = await client.options("/v2/epcis/bizSteps/destroying")
    assert (stored.status, dict(stored.headers)["Allow"]) == (
        absent.status,
        dict(absent.headers)["Allow"],
    )


async def test_extensions_name_the_prefixes_captured_documents_bound(client: Client) -> None:
    await capture(client, document(object_event(), context=WITH_EXTENSIONS))
    response = await client.options("/v2/epcis/events", headers=AUTH)
    assert response.headers["GS1-Extensions"] == "ex=https://vocabulary.example.com/"


async def test_extensions_are_not_told_to_a_caller_who_may_not_read_every_event(
    client: Client,
) -> None:
    await capture(client, document(object_event(), context=WITH_EXTENSIONS))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "shipping"}},
        },
    )
    for headers in ({"Authorization": f"Bearer {partner.token}"}, {}):
        response = await client.options("/v2/epcis/events", headers=headers)
        assert response.status == 204
        assert "GS1-Extensions" not in response.headers
