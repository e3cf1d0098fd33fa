"""Sign-in providers read from the environment as Directus reads them, and where a single
sign-on may send the browser afterwards."""

import pytest

from domain.access.providers import Providers, redirect_target

PUBLIC = "https://trace.example.com"
COMPLETE = {
    "AUTH_PROVIDERS": "keycloak",
    "AUTH_KEYCLOAK_DRIVER": "openid",
    "AUTH_KEYCLOAK_CLIENT_ID": "tracepoint",
    "AUTH_KEYCLOAK_CLIENT_SECRET": "s3cret",
    "AUTH_KEYCLOAK_ISSUER_URL": "https://id.example.com/realms/main",
}


def test_a_provider_takes_its_variables_by_its_upper_case_name() -> None:
    providers = Providers.from_environment(
        {
            **COMPLETE,
            "AUTH_KEYCLOAK_IDENTIFIER_KEY": "email",
            "AUTH_KEYCLOAK_ALLOW_PUBLIC_REGISTRATION": "true",
            "AUTH_KEYCLOAK_DEFAULT_ROLE_ID": "r1",
            "AUTH_KEYCLOAK_REDIRECT_ALLOW_LIST": "https://a.example.com/x, https://b.example.com",
        }
    )
    provider = providers.by_name["keycloak"]
    assert provider.identifier_key == "email"
    assert provider.allow_public_registration is True
    assert provider.default_role_id == "r1"
    assert provider.redirect_allow_list == ("https://a.example.com/x", "https://b.example.com")
    assert provider.mode == "session"
    assert providers.problems == {}


def test_the_defaults_are_directus_defaults() -> None:
    provider = Providers.from_environment(COMPLETE).by_name["keycloak"]
    assert provider.identifier_key == "sub"
    assert provider.allow_public_registration is False
    assert provider.scope == "openid profile email"
    assert provider.mode == "session"


def test_the_issuer_url_may_be_the_issuer_or_its_discovery_document() -> None:
    issuer = Providers.from_environment(COMPLETE).by_name["keycloak"]
    discovery = Providers.from_environment(
        {**COMPLETE, "AUTH_KEYCLOAK_ISSUER_URL": issuer.discovery_url}
    ).by_name["keycloak"]
    assert issuer.discovery_url == (
        "https://id.example.com/realms/main/.well-known/openid-configuration"
    )
    assert discovery.discovery_url == issuer.discovery_url


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"AUTH_KEYCLOAK_CLIENT_SECRET": ""}, "AUTH_KEYCLOAK_CLIENT_SECRET must be set"),
        ({"AUTH_KEYCLOAK_DRIVER": "saml"}, "AUTH_KEYCLOAK_DRIVER must be one of openid"),
        ({"AUTH_KEYCLOAK_MODE": "json"}, "AUTH_KEYCLOAK_MODE must be cookie or session"),
        ({"AUTH_KEYCLOAK_ALLOW_PUBLIC_REGISTRATION": "maybe"}, "must be true or false"),
    ],
)
def test_a_provider_configured_wrong_is_a_problem_not_a_provider(
    change: dict[str, str], problem: str
) -> None:
    providers = Providers.from_environment({**COMPLETE, **change})
    assert providers.by_name == {}
    assert problem in providers.problems["keycloak"]


def test_the_default_provider_name_is_taken() -> None:
    providers = Providers.from_environment({"AUTH_PROVIDERS": "default"})
    assert "built-in" in providers.problems["default"]


def test_disable_default_is_read() -> None:
    assert Providers.from_environment({"AUTH_DISABLE_DEFAULT": "true"}).disable_default
    assert not Providers.from_environment({}).disable_default


@pytest.mark.parametrize(
    ("redirect", "target"),
    [
        ("/console/", f"{PUBLIC}/console/"),
        ("/console/#/items?x=1", f"{PUBLIC}/console/#/items?x=1"),
        (f"{PUBLIC}/anything", f"{PUBLIC}/anything"),
        ("https://app.example.com/signed-in?next=1", "https://app.example.com/signed-in?next=1"),
        ("https://app.example.com:443/signed-in", "https://app.example.com:443/signed-in"),
    ],
)
def test_a_redirect_to_this_service_or_the_allow_list_is_allowed(
    redirect: str, target: str
) -> None:
    assert redirect_target(redirect, PUBLIC, ("https://app.example.com/signed-in",)) == target


@pytest.mark.parametrize(
    "redirect",
    [
        "https://evil.example.com/",
        "https://app.example.com/other",
        "http://app.example.com/signed-in",
        "https://app.example.com:8443/signed-in",
        "https://trace.example.com.evil.example/",
        "http://trace.example.com/",
        "//evil.example.com/",
        "/\\evil.example.com/",
        "javascript:alert(1)",
        "console/",
        "/console/\r\nSet-Cookie: x=1",
    ],
)
def test_any_other_redirect_is_refused(redirect: str) -> None:
    assert redirect_target(redirect, PUBLIC, ("https://app.example.com/signed-in",)) is None
