"""The pages the service's mails link to (password reset, invitation, e-mail
verification), opened from the mails in a real browser. Screenshots in
var/test-screenshots/console/."""

import pytest

from tests.console.browser import (
    Page,
    Served,
    make_user,
    shot,
    sign_in,
)

#: The service and browser of tests/console/conftest.py: every test runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("console-browser")


def test_a_password_is_reset_through_the_mailed_link(page: Page, served: Served) -> None:
    email = f"forgetful-{served.backend}@example.com"
    make_user(served, email, "old password 1")
    page.goto("/console/sign-in")
    page.click("text=Forgot your password?")
    page.fill("#email", email)
    page.click("#forgot button[type=submit]")
    page.wait_for_selector("#forgot .notice.success")
    link = served.link_in(served.mail_to(email), "reset-password")
    page.goto(link)
    page.fill("#password", "new password 2")
    page.fill("#password_confirm", "new password 2")
    shot(page, served, "14-reset-password")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector(".notice.success")
    assert "token" not in page.url
    shot(page, served, "15-reset-done")
    page.click("a:has-text('Sign in')")
    page.fill("#email", email)
    page.fill("#password", "new password 2")
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector(f"#who:has-text('{email}')")
    page.goto(link)  # used once
    page.fill("#password", "newer password 3")
    page.fill("#password_confirm", "newer password 3")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("text=This link has expired or was used already")


def test_an_invitation_is_accepted_through_the_mailed_link(page: Page, served: Served) -> None:
    email = f"invited-{served.backend}@example.com"
    _, roles = served.api("POST", "/roles", {"name": f"Viewers {served.backend}"})
    status, _ = served.api("POST", "/users/invite", {"email": email, "role": roles["data"]["id"]})
    assert status == 204, _
    page.goto(served.link_in(served.mail_to(email), "accept-invite"))
    page.fill("#password", "invited password 1")
    page.fill("#password_confirm", "invited password 2")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector("text=The two passwords differ.")
    page.fill("#password_confirm", "invited password 1")
    page.click("#password-form button[type=submit]")
    page.wait_for_selector(".notice.success")
    shot(page, served, "16-invitation-accepted")
    status, _ = served.api(
        "POST", "/auth/login", {"email": email, "password": "invited password 1"}, token=None
    )
    assert status == 200


def test_an_email_address_is_verified_through_the_mailed_link(page: Page, served: Served) -> None:
    email = f"registered-{served.backend}@example.com"
    status, _ = served.api(
        "POST", "/users/register", {"email": email, "password": "registered 1"}, token=None
    )
    assert status == 204, _
    link = served.link_in(served.mail_to(email), "verify-email")
    page.goto(link)
    page.wait_for_selector("#verify .notice.success")
    shot(page, served, "17-email-verified")
    page.goto(link)
    page.wait_for_selector("#verify .notice.error")
    # Registered users get no role here: signed in, they may read no event.
    sign_in(page, email, "registered 1")
    page.wait_for_selector("#results .notice.error:has-text('permission')")
