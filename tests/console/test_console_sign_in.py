"""Signing in to the console in a real browser: password, one-time password, single
sign-on, an ended session, a refreshed one. Screenshots in var/test-screenshots/console/."""

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest

from tests.console.browser import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    Page,
    Served,
    make_user,
    serve,
    shot,
    sign_in,
)
from tests.services import free_port

#: The service and browser of tests/console/conftest.py: every test runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("console-browser")


def test_a_user_signs_in_with_a_session_cookie_and_out_again(page: Page, served: Served) -> None:
    page.goto("/console/")
    page.wait_for_selector("#sign-in")
    page.fill("#email", ADMIN_EMAIL)
    page.fill("#password", "not the password")
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#sign-in .notice.error")
    shot(page, served, "01-sign-in-refused")
    assert page.locator(".providers a").count() == 0  # the service has no SSO provider
    page.fill("#password", ADMIN_PASSWORD)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#results table")
    assert page.inner_text("#who") == ADMIN_EMAIL
    [cookie] = [c for c in page.context.cookies() if c["name"] == "platform_session_token"]
    assert cookie["httpOnly"]
    shot(page, served, "02-signed-in-events")
    page.click("#sign-out")
    page.wait_for_selector("#sign-in")
    assert not [c for c in page.context.cookies() if c["name"] == "platform_session_token"]
    page.goto("/console/capture")
    page.wait_for_selector("#sign-in")


def test_a_user_with_two_factor_authentication_gives_a_one_time_password(
    page: Page, served: Served
) -> None:
    email, password = f"tfa-{served.backend}@example.com", "tfa password 1"
    make_user(served, email, password)
    _, signed = served.api(
        "POST", "/auth/login", {"email": email, "password": password}, token=None
    )
    token = signed["data"]["access_token"]
    _, generated = served.api("POST", "/users/me/tfa/generate", {"password": password}, token=token)
    secret = generated["data"]["secret"]
    status, _ = served.api(
        "POST",
        "/users/me/tfa/enable",
        {"secret": secret, "otp": pyotp.TOTP(secret).now()},
        token=token,
    )
    assert status == 204, _
    page.goto("/console/sign-in")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#otp", state="visible")
    shot(page, served, "03-one-time-password-asked")
    page.fill("#otp", pyotp.TOTP(secret).now())
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector(f"#who:has-text('{email}')")


def test_single_sign_on_providers_are_offered_as_links_back_to_the_console(
    page: Page, served: Served
) -> None:
    providers = {"data": [{"name": "acme", "label": "Acme ID"}], "disableDefault": False}
    page.route("**/auth", lambda route: route.fulfill(json=providers))
    page.goto("/console/sign-in?next=%2Fconsole%2Fcapture")
    link = page.locator(".providers a:has-text('Acme ID')")
    href = urlsplit(link.get_attribute("href") or "")
    assert href.path == "/auth/login/acme"
    query = {"redirect": [f"{served.url}/console/capture"], "mode": ["session"]}
    assert parse_qs(href.query) == query
    shot(page, served, "03b-single-sign-on")
    # A sign-in that failed at the provider comes back with its reason.
    page.goto("/console/sign-in?reason=INVALID_CREDENTIALS")
    page.wait_for_selector("#sign-in .notice.error:has-text('no active account')")


def test_a_user_signs_in_with_single_sign_on_at_a_real_openid_provider(
    browser: Any, served: Served, tmp_path: Path
) -> None:
    provider = pytest.importorskip(
        "tests.access.openid_provider",
        reason="single sign-on (issue 19, in progress) is not on this branch yet",
    )
    port = free_port()
    callback = f"http://127.0.0.1:{port}/auth/login/local/callback"
    with provider.running_provider([callback]) as issuer:
        environment = {
            "AUTH_PROVIDERS": "local",
            "AUTH_LOCAL_DRIVER": "openid",
            "AUTH_LOCAL_CLIENT_ID": issuer.client_id,
            "AUTH_LOCAL_CLIENT_SECRET": issuer.client_secret,
            "AUTH_LOCAL_ISSUER_URL": issuer.issuer,
            "AUTH_LOCAL_ALLOW_PUBLIC_REGISTRATION": "true",
            "AUTH_LOCAL_LABEL": "Test provider",
        }
        with serve(served.backend, tmp_path, environment, port) as sso:
            context = browser.new_context(base_url=sso.url)
            try:
                page = context.new_page()
                page.goto("/console/capture")
                page.click(".providers a:has-text('Test provider')")
                page.fill("input[name=login]", "sso-user")  # the provider's own form
                page.click("button")
                page.wait_for_selector("#sign-out", state="visible")
                assert urlsplit(page.url).path == "/console/capture"  # back where it began
                # A new user without a role: the EPCIS API knows them, and refuses them.
                page.wait_for_selector("#capture ~ section .notice:has-text('permission')")
                shot(page, served, "03c-signed-in-with-single-sign-on")
            finally:
                context.close()


def test_an_ended_session_leads_back_to_the_sign_in_page(page: Page, served: Served) -> None:
    sign_in(page)
    page.context.clear_cookies()
    page.click("[data-nav=capture]")
    page.wait_for_selector("#sign-in")
    assert "ended" in page.inner_text("#sign-in")
    page.fill("#email", ADMIN_EMAIL)
    page.fill("#password", ADMIN_PASSWORD)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#capture")  # back where the user was


def test_a_session_about_to_expire_is_refreshed_while_the_console_is_open(
    browser: Any, served: Served, tmp_path: Path
) -> None:
    # Sessions of four seconds: the console refreshes each a little before its end.
    with serve(served.backend, tmp_path, {"TRACEPOINT_SESSION_COOKIE_TTL": "4s"}) as short:
        context = browser.new_context(base_url=short.url)
        try:
            page = context.new_page()
            sign_in(page)
            first = _session_cookie(page)
            page.wait_for_timeout(6_000)  # longer than the first session lasted
            assert _session_cookie(page) != first
            page.click("[data-nav=capture]")
            # Listed with the refreshed cookie: the EPCIS API took it.
            page.wait_for_selector("text=No capture yet.")
            assert page.locator("#sign-in").count() == 0
        finally:
            context.close()


def _session_cookie(page: Page) -> str:
    [cookie] = [c for c in page.context.cookies() if c["name"] == "platform_session_token"]
    return str(cookie["value"])
