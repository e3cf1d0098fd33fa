"""What the service does for the console, without a browser: its files under `/console/`
with a strict policy, and the EPCIS API taking the console's session cookie, for writes
only from the service's own pages."""

import fnmatch
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from api.console.assets import STATIC
from api.operations.cors import CorsPolicy
from domain.epcis.event_query import named_parameters
from infrastructure.settings import Settings
from tests.conftest import AUTH, make_settings
from tests.epcis.documents import document, object_event

ROOT = Path(__file__).resolve().parents[2]
Client = TestClient[Any, Any]


async def signed_in(client: Client) -> None:
    """Sign the client's cookie jar in as the admin, as the console does."""
    response = await client.post(
        "/auth/login",
        json={
            "email": "admin@example.com",
            "password": "correct horse battery staple",
            "mode": "session",
        },
    )
    assert response.status == 200, await response.text()


def own_origin(client: Client) -> str:
    return str(client.make_url("")).rstrip("/")


async def stored(client: Client, epc: str) -> int:
    response = await client.get("/v2/epcis/events", params={"MATCH_epc": epc}, headers=AUTH)
    return len((await response.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"])


async def test_the_console_page_is_served_with_a_policy_that_allows_only_its_own_files(
    client: Client,
) -> None:
    response = await client.get("/console/items/urn:epc:id:sgtin:4012345.011111.1")
    assert response.status == 200
    assert response.content_type == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["X-Frame-Options"] == "DENY"
    page = await response.text()
    assert not re.search(r"(src|href)=\"https?:", page)  # nothing from elsewhere


async def test_the_consoles_files_are_revalidated_and_answer_304_while_unchanged(
    client: Client,
) -> None:
    response = await client.get("/console/js/app.js")
    assert response.status == 200
    assert response.content_type == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    again = await client.get(
        "/console/js/app.js", headers={"If-None-Match": response.headers["ETag"]}
    )
    assert again.status == 304


async def test_the_console_without_its_slash_is_sent_to_it(client: Client) -> None:
    response = await client.get("/console", allow_redirects=False)
    assert (response.status, response.headers["Location"]) == (301, "/console/")


@pytest.mark.parametrize(
    "path",
    [
        "/console/js/missing.js",
        "/console/js/..%2F..%2Fassets.py",
        "/console/%2E%2E/app.py",
        "/console/js/%00.js",
    ],
)
async def test_no_file_outside_the_consoles_files_is_served(client: Client, path: str) -> None:
    response = await client.get(path)
    assert response.status == 404
    assert "import" not in await response.text()


async def test_the_epcis_api_reads_with_the_consoles_session_cookie(client: Client) -> None:
    await client.post("/v2/epcis/capture", json=document(object_event()), headers=AUTH)
    await signed_in(client)
    response = await client.get("/v2/epcis/events")
    assert response.status == 200
    events = (await response.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert len(events) == 1


async def test_a_capture_with_the_session_cookie_from_the_services_page_is_stored(
    client: Client,
) -> None:
    await signed_in(client)
    event = object_event()
    response = await client.post(
        "/v2/epcis/capture", json=document(event), headers={"Origin": own_origin(client)}
    )
    assert response.status == 201, await response.text()
    assert await stored(client, event["epcList"][0]) == 1


@pytest.mark.parametrize("origin", ["https://evil.example.com", "null", None])
async def test_a_capture_with_the_session_cookie_from_elsewhere_is_refused(
    client: Client, origin: str | None
) -> None:
    await signed_in(client)
    event = object_event()
    headers = {"Origin": origin} if origin else {}
    response = await client.post("/v2/epcis/capture", json=document(event), headers=headers)
    assert response.status == 403
    assert (await response.json())["type"] == "epcisException:SecurityException"
    assert await stored(client, event["epcList"][0]) == 0


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The service under test, whose CORS lets one other site call with credentials."""
    return make_settings(database_url, cors_enabled=True, cors_origin="https://app.example.com")


async def test_a_capture_with_the_session_cookie_from_a_site_cors_names_is_stored(
    client: Client,
) -> None:
    await signed_in(client)
    event = object_event()
    response = await client.post(
        "/v2/epcis/capture", json=document(event), headers={"Origin": "https://app.example.com"}
    )
    assert response.status == 201, await response.text()
    assert await stored(client, event["epcList"][0]) == 1


async def test_a_subscription_opened_with_the_session_cookie_from_elsewhere_is_refused(
    client: Client,
) -> None:
    await signed_in(client)
    created = await client.post(
        "/v2/epcis/queries",
        json={"name": "all-events", "query": {"EQ_bizStep": ["receiving"]}},
        headers=AUTH,
    )
    assert created.status == 201, await created.text()
    response = await client.get(
        "/v2/epcis/queries/all-events/events",
        headers={
            "Origin": "https://evil.example.com",
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
    )
    assert response.status == 403
    assert "session cookie" in (await response.json())["detail"]


async def test_an_ended_session_is_401_on_the_epcis_api(client: Client) -> None:
    await signed_in(client)
    logout = await client.post("/auth/logout", json={"mode": "session"})
    assert logout.status == 204
    client.session.cookie_jar.update_cookies({"platform_session_token": "not.a.token"})
    response = await client.get("/v2/epcis/events")
    assert response.status == 401
    assert "sign in again" in (await response.json())["detail"]


def test_the_search_form_names_every_query_parameter() -> None:
    form = (STATIC / "js" / "query_parameters.js").read_text()
    named = set(re.findall(r'name: "([^"]+)"', form))
    # The standard spells the error-declaration times two ways; the form offers one.
    missing = {
        name for name in named_parameters() if name not in named and "Declaration_" not in name
    }
    assert not missing


def test_every_file_of_the_console_is_shipped_in_the_package() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = settings["tool"]["setuptools"]["package-data"]["api.console"]
    files = [p.relative_to(STATIC.parent).as_posix() for p in STATIC.rglob("*") if p.is_file()]
    unshipped = [f for f in files if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert not unshipped


@pytest.mark.parametrize(
    ("origin_setting", "credentials", "trusted"),
    [
        ("https://app.example.com", True, True),
        ("regex:^https://[a-z]+\\.example\\.com$", True, True),
        ("https://app.example.com", False, False),
        ("true", True, False),
        ("*", True, False),
    ],
)
def test_only_origins_cors_names_for_credentials_may_write_with_the_cookie(
    origin_setting: str, credentials: bool, trusted: bool
) -> None:
    policy = CorsPolicy.parse(
        enabled=True,
        origin=origin_setting,
        methods="GET,POST",
        allowed_headers="Content-Type",
        exposed_headers="",
        credentials=credentials,
        max_age=0,
    )
    assert policy.trusts("https://app.example.com") is trusted
    assert not policy.trusts("https://evil.example.org")
