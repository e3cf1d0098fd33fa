"""Security headers on every answer of both API families, errors included; HSTS only where
the cookies are HTTPS-only; no CORS header unless CORS is enabled."""

from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from api.operations.security_headers import DATA_POLICY, PAGE_POLICY
from application.service.runtime import Tracepoint
from infrastructure.settings import Settings
from tests.conftest import AUTH, make_settings
from tests.logs.conftest import logged_client

Client = TestClient[Any, Any]
BASELINE = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/users/me", AUTH, 200),
        ("/users/me", {"Authorization": "Bearer wrong"}, 401),
        ("/nowhere/at/all", {}, 404),
        ("/v2/epcis/events", AUTH, 200),
        ("/v2/epcis/events", {}, 401),
        ("/server/ping", {}, 200),
    ],
)
async def test_every_answer_carries_the_security_headers(
    client: Client, path: str, headers: dict[str, str], status: int
) -> None:
    response = await client.get(path, headers=headers)
    assert response.status == status
    for name, value in BASELINE.items():
        assert response.headers[name] == value
    assert response.headers["Content-Security-Policy"] == DATA_POLICY
    assert "frame-ancestors 'none'" in DATA_POLICY


async def test_an_html_page_may_post_its_inline_form_to_this_service_only(
    tracepoint: Tracepoint, aiohttp_client: Any
) -> None:
    async def page(request: web.Request) -> web.Response:
        return web.Response(text="<form method=post></form>", content_type="text/html")

    client = await logged_client(tracepoint, aiohttp_client, {"/test-only/page": page})
    response = await client.get("/test-only/page")
    assert response.headers["Content-Security-Policy"] == PAGE_POLICY
    assert "form-action 'self'" in PAGE_POLICY
    assert "frame-ancestors 'none'" in PAGE_POLICY


async def test_a_handler_keeps_a_policy_of_its_own(
    tracepoint: Tracepoint, aiohttp_client: Any
) -> None:
    async def page(request: web.Request) -> web.Response:
        response = web.Response(text="<p>hi</p>", content_type="text/html")
        response.headers["Content-Security-Policy"] = "default-src 'self'"
        return response

    client = await logged_client(tracepoint, aiohttp_client, {"/test-only/own": page})
    response = await client.get("/test-only/own")
    assert response.headers["Content-Security-Policy"] == "default-src 'self'"


async def test_no_hsts_while_cookies_may_travel_over_http(client: Client) -> None:
    response = await client.get("/server/ping")
    assert "Strict-Transport-Security" not in response.headers


async def test_no_cors_header_while_cors_is_disabled(client: Client) -> None:
    response = await client.get("/users/me", headers={**AUTH, "Origin": "https://app.example.com"})
    assert not [name for name in response.headers if name.startswith("Access-Control-")]


class TestWithSecureCookies:
    @pytest.fixture
    def settings(self, database_url: str) -> Settings:
        return make_settings(database_url, cookie_secure=True)

    async def test_hsts_is_sent_on_every_answer(self, client: Client) -> None:
        for path in ("/server/ping", "/nowhere/at/all", "/v2/epcis/events"):
            response = await client.get(path)
            assert response.headers["Strict-Transport-Security"] == "max-age=31536000"
