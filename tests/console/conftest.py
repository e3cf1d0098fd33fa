"""The console's browser tests share one service a backend and one chromium (they run in
one xdist worker: `xdist_group("console-browser")`); a failed test keeps a screenshot of
the page it ended on."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.console.browser import Page, Served, chromium, serve, shot
from tests.console.seed import seed


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[None]:
    """Note each phase's report on the test, for the `page` fixture to read."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(
    scope="session", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The service under test, with the events of `seed`, shared by the browser tests."""
    chromium()
    with serve(request.param, tmp_path_factory.mktemp(f"console-{request.param}")) as running:
        seed(running)
        yield running


# Per module, not per session: Playwright's sync API keeps an event loop running on the
# worker's thread while it is open, and every async test the worker runs after it fails.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for a module's browser tests."""
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
