"""Capturing JSON and XML documents through the console, in a real browser. Screenshots
in var/test-screenshots/console/."""

import json
from pathlib import Path

import pytest

from tests.console.browser import (
    Page,
    Served,
    shot,
    sign_in,
)
from tests.epcis.documents import document, object_event

#: The service and browser of tests/console/conftest.py: every test runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("console-browser")


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
