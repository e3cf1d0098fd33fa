"""CORS in Directus's manner: an allow-list of origins (CORS_ORIGIN), preflights answered
before authentication, and nothing for an origin not on the list."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from api.operations.cors import CorsPolicy
from infrastructure.settings import Settings
from tests.conftest import AUTH, make_settings

Client = TestClient[Any, Any]
ALLOWED = "https://app.example.com"


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(
        database_url,
        cors_enabled=True,
        cors_origin=rf"{ALLOWED}, regex:^https://[a-z]+\.partner\.example$",
        cors_exposed_headers="Content-Range,X-Request-Id",
        cors_max_age=600,
    )


def preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "PATCH",
        "Access-Control-Request-Headers": "authorization,content-type",
    }


async def test_a_preflight_from_an_allowed_origin_is_answered_without_credentials(
    client: Client,
) -> None:
    response = await client.options("/users/me", headers=preflight(ALLOWED))
    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert response.headers["Access-Control-Allow-Methods"] == "GET,POST,PATCH,DELETE"
    assert response.headers["Access-Control-Allow-Headers"] == "Content-Type,Authorization"
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert response.headers["Access-Control-Max-Age"] == "600"
    assert response.headers["Vary"] == "Origin"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


async def test_a_preflight_on_the_epcis_api_is_answered_too(client: Client) -> None:
    response = await client.options("/v2/epcis/capture", headers=preflight(ALLOWED))
    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED


async def test_an_origin_matching_a_regex_item_is_allowed(client: Client) -> None:
    origin = "https://shop.partner.example"
    response = await client.options("/items/products", headers=preflight(origin))
    assert response.status == 204
    assert response.headers["Access-Control-Allow-Origin"] == origin


async def test_an_origin_not_on_the_list_gets_no_cors_header(client: Client) -> None:
    for origin in ("https://evil.example", "https://app.example.com.evil.example"):
        answered = await client.options("/users/me", headers=preflight(origin))
        actual = await client.get("/users/me", headers={**AUTH, "Origin": origin})
        for response in (answered, actual):
            assert not [h for h in response.headers if h.startswith("Access-Control-")]


async def test_an_answer_to_an_allowed_origin_exposes_the_configured_headers(
    client: Client,
) -> None:
    response = await client.get("/users/me", headers={**AUTH, "Origin": ALLOWED})
    assert response.status == 200
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert response.headers["Access-Control-Expose-Headers"] == "Content-Range,X-Request-Id"
    assert response.headers["Access-Control-Allow-Credentials"] == "true"
    assert "Origin" in response.headers["Vary"]


async def test_an_error_answer_to_an_allowed_origin_carries_cors_headers(client: Client) -> None:
    for path in ("/users/me", "/v2/epcis/events"):
        response = await client.get(path, headers={"Origin": ALLOWED})
        assert response.status == 401
        assert response.headers["Access-Control-Allow-Origin"] == ALLOWED


def policy(origin: str) -> CorsPolicy:
    return CorsPolicy.parse(
        enabled=True,
        origin=origin,
        methods="GET",
        allowed_headers="",
        exposed_headers="",
        credentials=False,
        max_age=0,
    )


def test_cors_origin_true_reflects_any_origin() -> None:
    assert policy("true").allow_origin("https://any.example") == "https://any.example"


def test_cors_origin_star_answers_star() -> None:
    assert policy("*").allow_origin("https://any.example") == "*"


def test_cors_origin_false_allows_no_origin() -> None:
    assert policy("false").allow_origin("https://any.example") is None


def test_an_array_prefixed_list_is_read_as_directus_reads_it() -> None:
    allowed = policy("array:https://a.example,https://b.example")
    assert allowed.allow_origin("https://b.example") == "https://b.example"
    assert allowed.allow_origin("https://c.example") is None


def test_a_broken_regex_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="CORS_ORIGIN"):
        policy("regex:(unclosed")


def test_the_settings_take_directus_names_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CORS_ENABLED", "true")
    monkeypatch.setenv("CORS_ORIGIN", "https://a.example")
    monkeypatch.setenv("CORS_MAX_AGE", "60")
    settings = Settings()
    assert (settings.cors_enabled, settings.cors_origin, settings.cors_max_age) == (
        True,
        "https://a.example",
        60,
    )
