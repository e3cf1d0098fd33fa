"""The console's event search, an event, an item and its lineage graph, in a real browser.
Screenshots in var/test-screenshots/console/."""

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.console.browser import (
    Page,
    Served,
    shot,
    sign_in,
)
from tests.console.seed import COMMISSIONED, DECLARED_ID, PACKED

#: The service and browser of tests/console/conftest.py: every test runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("console-browser")


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
