"""The web console in a real browser (Debian's chromium through Playwright) against a
started `tracepoint serve`, on SQLite and PostgreSQL: signing in (and with a one-time
password), searching events page by page, an event in JSON and XML with its error
declaration, an item's page and lineage graph, capturing files, and the pages the mails
link to. Every flow leaves screenshots in var/test-screenshots/console/<backend>/.
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyotp
import pytest

from tests.console.browser import ADMIN_EMAIL, ADMIN_PASSWORD, Served, chromium, serve
from tests.epcis.documents import aggregation_event, document, object_event
from tests.services import free_port

#: One service and one browser for the module: every test runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("console-browser")

Page = Any  # playwright.sync_api.Page; imported only where chromium is there

PALLET = "urn:epc:id:sscc:4012345.0000000001"
PACKED = [f"urn:epc:id:sgtin:4012345.011111.{serial}" for serial in (1001, 1002, 1003)]
#: The event that is later declared in error.
DECLARED_ID = "urn:uuid:6a3c0d5e-9d3b-4f43-9e4b-2f1c1c0e0a01"
COMMISSIONED = 25


def _seed(served: Served) -> None:
    """The events the tests look at: commissioning, packing on a pallet, a declared error."""
    commissioning = [
        object_event(
            action="ADD",
            bizStep="commissioning",
            disposition="active",
            eventTime=f"2024-03-01T08:{minute:02d}:00.000Z",
            eventTimeZoneOffset="+00:00",
            epcList=[f"urn:epc:id:sgtin:4012345.022222.{minute + 1}"],
        )
        for minute in range(COMMISSIONED)
    ]
    shipped = object_event(
        eventID=DECLARED_ID,
        epcList=PACKED[:1],
        eventTime="2024-03-01T09:00:00.000Z",
        eventTimeZoneOffset="+00:00",
    )
    packing = aggregation_event(
        PALLET,
        PACKED,
        bizLocation={"id": "urn:epc:id:sgln:4012345.00002.0"},
        eventTime="2024-03-01T11:00:00.000Z",
    )
    status, body = served.api(
        "POST", "/v2/epcis/capture", document(*commissioning, shipped, packing)
    )
    assert status == 201, body
    declared = {
        **shipped,
        "errorDeclaration": {
            "declarationTime": "2024-03-02T10:00:00.000Z",
            "reason": "incorrect_data",
        },
    }
    status, body = served.api("POST", "/v2/epcis/capture", document(declared))
    assert status == 201, body


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The service under test, with the events of `_seed`."""
    chromium()
    with serve(request.param, tmp_path_factory.mktemp(f"console-{request.param}")) as running:
        _seed(running)
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for the module."""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any, served: Served, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser context (no cookies) and its page; script errors and what the
    page's policy blocked fail the test, and a failed test leaves a screenshot of where it
    ended."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=served.url)
    context.set_default_timeout(10_000)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    # What the page's policy blocked: an inline script or style, an outside asset.
    opened.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    try:
        yield opened
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            shot(opened, served, f"failed-{request.node.originalname}")
    finally:
        context.close()
    assert not errors, errors


def shot(page: Page, served: Served, name: str) -> None:
    page.screenshot(path=str(served.shots / f"{name}.png"), full_page=True)


def make_user(served: Served, email: str, password: str) -> None:
    """An active user with the bootstrap admin's role."""
    _, me = served.api("GET", "/users/me?fields=role")
    user = {"email": email, "password": password, "role": me["data"]["role"]}
    status, body = served.api("POST", "/users", user)
    assert status in (200, 204), body


def sign_in(page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
    page.goto("/console/")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#sign-out", state="visible")


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


def test_the_event_search_takes_query_parameters_and_pages_through_the_answer(
    page: Page, served: Served
) -> None:
    sign_in(page)
    page.click("[data-nav=events]")
    page.fill("#q-EQ_bizStep", "commissioning")
    page.select_option("#q-EQ_action", "ADD")
    page.click("summary:has-text('Order and size')")
    page.fill("#q-perPage", "10")
    page.click("#search button[type=submit]")
    page.wait_for_selector("#page-number:has-text('Page 1')")
    assert page.locator("#results tbody tr").count() == 10
    query = parse_qs(urlsplit(page.url).query)
    assert query == {"EQ_bizStep": ["commissioning"], "EQ_action": ["ADD"], "perPage": ["10"]}
    shot(page, served, "04-search-page-1")
    seen = set(page.locator("#results tbody tr td:first-child").all_inner_texts())
    page.click("#next")
    page.wait_for_selector("#page-number:has-text('Page 2')")
    page.click("#next")
    page.wait_for_selector("#page-number:has-text('Page 3')")
    assert page.locator("#results tbody tr").count() == COMMISSIONED - 20
    assert page.is_disabled("#next")
    shot(page, served, "05-search-page-3")
    page.click("#previous")
    page.wait_for_selector("#page-number:has-text('Page 2')")
    second = set(page.locator("#results tbody tr td:first-child").all_inner_texts())
    assert len(second) == 10
    assert not second & seen
    page.click("#results tbody tr:first-child td:first-child a")  # its ID is a CBV hash
    page.wait_for_selector("h1:has-text('ObjectEvent')")
    assert page.inner_text("p.mono").startswith("ni:///sha-256;")


def test_a_search_with_a_bad_parameter_says_what_is_wrong(page: Page, served: Served) -> None:
    sign_in(page)
    page.goto("/console/events?GE_eventTime=yesterday")
    page.wait_for_selector("#results .notice.error")
    assert "GE_eventTime" in page.inner_text("#results")


def test_an_event_shows_its_error_declaration_and_itself_in_json_and_xml(
    page: Page, served: Served
) -> None:
    sign_in(page)
    page.goto("/console/events?EXISTS_errorDeclaration=true")
    page.wait_for_selector("#results tbody tr")
    assert page.locator("#results tbody tr").count() == 1
    page.click("#results tbody tr td:first-child a")
    page.wait_for_selector("#error-declaration")
    assert "incorrect_data" in page.inner_text("#error-declaration")
    page.wait_for_selector("#tab-json[aria-selected=true]")
    # The event as captured and as declared in error: the record only grows.
    original, declared = json.loads(page.inner_text("#source"))
    assert original["eventID"] == declared["eventID"] == DECLARED_ID
    assert "errorDeclaration" not in original
    assert declared["errorDeclaration"]["reason"].endswith("incorrect_data")
    shot(page, served, "06-event-json")
    page.click("#tab-xml")
    page.wait_for_selector("#source:has-text('<errorDeclaration>')")
    assert DECLARED_ID in page.inner_text("#source")
    shot(page, served, "07-event-xml")


def test_an_item_shows_where_it_is_what_holds_it_and_its_timeline(
    page: Page, served: Served
) -> None:
    sign_in(page)
    page.goto(f"/console/events?MATCH_epc={PACKED[0]}")
    page.wait_for_selector("#results tbody tr")
    page.click("#results tbody tr:first-child a.epc[title$='/21/1001']")
    page.wait_for_selector("#timeline")
    # Shipped (and that declared in error), then packed on the pallet.
    assert page.locator("#timeline li").count() == 3
    assert "error declared" in page.inner_text("#timeline li:nth-child(2)")
    assert "packing" in page.inner_text("#timeline li:nth-child(3)")
    # Where the packing put it (urn:epc:id:sgln:4012345.00002.0), in its Digital Link.
    assert (page.get_attribute("#where", "title") or "").endswith("/414/4012345000023")
    assert "/00/" in (page.get_attribute("#holder a", "title") or "")
    shot(page, served, "08-item")


def _canned_trace(root: str, moments: list[str] | None = None) -> Any:
    """A `/trace` stand-in: the item on a pallet in a container, the pallet's other items."""
    pallet, container = "urn:test:pallet", "urn:test:container"

    def node(id: str, kind: str = "instance", **more: Any) -> dict[str, Any]:
        return {
            "id": id,
            "kind": kind,
            "digital_link": id,
            "eventTime": "2024-03-01T11:00:00Z",
            "bizStep": "packing",
            "disposition": "in_progress",
            "bizLocation": None,
            "readPoint": None,
            "parent": more.get("parent"),
        }

    def edge(child: str, parent: str) -> dict[str, Any]:
        return {
            "from": child,
            "to": parent,
            "relation": "contained_in",
            "eventID": "urn:test:e",
            "eventTime": "2024-03-01T11:00:00Z",
            "until": None,
        }

    def answer(route: Any) -> None:
        asked = parse_qs(urlsplit(route.request.url).query)
        epc, direction = asked["epc"][0], asked["direction"][0]
        if moments is not None:
            moments.extend(asked.get("at", []))
        assert asked["depth"] == ["1"]
        nodes, edges = [], []
        if epc == root and direction == "both":
            nodes = [node(root, parent=pallet), node(pallet), node("urn:test:lot", "class")]
            edges = [edge(root, pallet), {**edge(root, "urn:test:lot"), "relation": "member_of"}]
        elif epc == pallet and direction == "downstream":
            nodes, edges = [node(pallet), node(container)], [edge(pallet, container)]
        elif epc == pallet and direction == "upstream":
            others = ["urn:test:item-2", "urn:test:item-3"]
            nodes = [node(pallet), *(node(o, parent=pallet) for o in others)]
            edges = [edge(root, pallet), *(edge(o, pallet) for o in others)]
        body = {"data": {"root": epc, "nodes": nodes, "edges": edges}}
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    return answer


def test_the_lineage_graph_draws_what_trace_answers_and_expands_both_ways(
    page: Page, served: Served
) -> None:
    # /trace is another engineer's work in progress: the drawing is tested on its
    # agreed answer, served to the browser here.
    root, moments = "urn:test:item-1", []
    page.route("**/trace?*", _canned_trace(root, moments))
    sign_in(page)
    page.goto(f"/console/items/{root}")
    page.wait_for_selector("#lineage g.node.root")
    assert page.locator("#lineage g.node").count() == 3
    assert page.locator("#lineage g.edge").count() == 2
    page.click("#lineage g.node[data-id='urn:test:pallet']")
    page.click("#expand-downstream")
    page.wait_for_selector("#lineage g.node[data-id='urn:test:container']")
    assert page.is_disabled("#expand-downstream")
    page.click("#expand-upstream")
    page.wait_for_selector("#lineage g.node[data-id='urn:test:item-3']")
    assert page.locator("#lineage g.node").count() == 6
    assert page.locator("#lineage g.edge").count() == 5

    # Drawn in layers: upstream to the left of what it went into.
    def x(id: str) -> float:
        box = page.locator(f"#lineage g.node[data-id='{id}']").bounding_box()
        assert box is not None
        return float(box["x"])

    assert x("urn:test:item-3") < x("urn:test:pallet") < x("urn:test:container")
    shot(page, served, "09-lineage-expanded")
    # As it was at a moment: drawn anew from what /trace says of then.
    page.fill("#at", "2024-03-01T12:00:00Z")
    page.click("#lineage-at button")
    page.wait_for_selector("#expand-upstream[disabled]")
    assert page.locator("#lineage g.node").count() == 3
    assert moments == ["2024-03-01T12:00:00Z"]


def test_the_lineage_graph_of_a_packed_item_expands_to_the_other_items_on_its_pallet(
    page: Page, served: Served
) -> None:
    status, answer = served.api("GET", f"/trace?epc={PACKED[0]}&direction=both&depth=1")
    if status == 404 and "doesn't exist" in str(answer):
        pytest.skip("GET /trace is not served by this version (issue 19's lineage, in progress)")
    assert status == 200, answer
    sign_in(page)
    page.goto(f"/console/items/{PACKED[0]}")
    page.wait_for_selector("#lineage g.node.root")
    pallet = page.locator("#lineage g.node:not(.root)", has_text="/00/")
    if not pallet.count():
        pallet = page.locator("#lineage g.node:not(.root)", has_text="sscc")
    assert pallet.count() == 1
    assert page.locator("#lineage g.edge.contained_in").count() == 1
    pallet.click()
    page.click("#expand-upstream")
    page.locator("#lineage g.node").nth(3).wait_for()  # the pallet's two other items
    drawn = page.locator("#lineage g.node").evaluate_all("nodes => nodes.map(n => n.dataset.id)")
    for serial in ("1002", "1003"):
        assert any(serial in node for node in drawn), drawn
    assert page.locator("#lineage g.edge.contained_in").count() == 3
    shot(page, served, "09b-lineage-from-trace")


def _upload(page: Page, path: Path, behaviour: str = "rollback") -> None:
    page.goto("/console/capture")
    page.set_input_files("#document", str(path))
    page.select_option("#behaviour", behaviour)
    page.click("#capture button[type=submit]")


def test_a_json_and_an_xml_document_are_captured_and_their_jobs_shown(
    page: Page, served: Served, tmp_path: Path
) -> None:
    sign_in(page)
    json_file = tmp_path / "events.json"
    json_file.write_text(json.dumps(document(object_event(), object_event())))
    _upload(page, json_file)
    page.wait_for_selector("#job")
    assert "Captured 2 new event(s)" in page.inner_text("#capture-result")
    assert "success" in page.inner_text("#job")
    shot(page, served, "10-capture-json")
    xml_file = tmp_path / "events.xml"
    xml_file.write_text(XML_DOCUMENT)
    _upload(page, xml_file)
    page.wait_for_selector("#job")
    assert "Captured 1 new event(s)" in page.inner_text("#capture-result")
    shot(page, served, "11-capture-xml")
    page.click("#jobs tbody tr:first-child a")
    page.wait_for_selector("#job")
    page.goto("/console/events?MATCH_epc=urn:epc:id:sgtin:4012345.033333.7")
    page.wait_for_selector("#results tbody tr")


def test_a_bad_document_shows_its_errors(page: Page, served: Served, tmp_path: Path) -> None:
    sign_in(page)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document(object_event(action="SOMETIMES"))))
    _upload(page, bad)
    page.wait_for_selector("#capture-errors")
    assert "'SOMETIMES' is not one of" in page.inner_text("#capture-errors")
    shot(page, served, "12-capture-refused")
    bad.write_text(
        json.dumps(document(object_event(), object_event(eventTime="2024-02-30T10:00:00Z")))
    )
    _upload(page, bad, "proceed")
    page.wait_for_selector("#job-errors")
    assert "1 rejected" in page.inner_text("#capture-result")
    shot(page, served, "13-capture-job-errors")


XML_DOCUMENT = """<?xml version="1.0" encoding="UTF-8"?>
<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0"
    creationDate="2024-03-01T10:00:00.000Z">
  <EPCISBody><EventList><ObjectEvent>
    <eventTime>2024-03-01T12:00:00.000Z</eventTime>
    <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
    <epcList><epc>urn:epc:id:sgtin:4012345.033333.7</epc></epcList>
    <action>OBSERVE</action>
    <bizStep>urn:epcglobal:cbv:bizstep:receiving</bizStep>
    <readPoint><id>urn:epc:id:sgln:4012345.00001.0</id></readPoint>
  </ObjectEvent></EventList></EPCISBody>
</epcis:EPCISDocument>
"""


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
