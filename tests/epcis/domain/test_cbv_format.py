"""CBV values as XML answers write them (`GS1-CBV-XML-Format`)."""

import pytest

from domain.epcis.cbv_format import (
    CbvXmlFormat,
    UnknownCbvFormat,
    cbv_values_for_xml,
    parse_cbv_xml_format,
    xml_value,
)

URN = "urn:epcglobal:cbv:bizstep:shipping"
WEB = "https://ref.gs1.org/cbv/BizStep-shipping"
CURIE = "cbv:BizStep-shipping"


@pytest.mark.parametrize("spelling", ["shipping", URN, WEB, CURIE])
def test_always_urn_writes_the_cbv_urn(spelling: str) -> None:
    assert xml_value("bizStep", spelling, CbvXmlFormat.URN) == URN


@pytest.mark.parametrize("spelling", ["shipping", URN, WEB, CURIE])
def test_always_web_uri_writes_the_gs1_web_uri(spelling: str) -> None:
    assert xml_value("bizStep", spelling, CbvXmlFormat.WEB_URI) == WEB


@pytest.mark.parametrize("cbv_format", [CbvXmlFormat.NEVER_TRANSLATES, CbvXmlFormat.NO_PREFERENCE])
def test_keeping_values_keeps_uris_and_writes_bare_words_as_urns(cbv_format: CbvXmlFormat) -> None:
    assert xml_value("bizStep", WEB, cbv_format) == WEB
    assert xml_value("bizStep", URN, cbv_format) == URN
    assert xml_value("bizStep", "shipping", cbv_format) == URN


@pytest.mark.parametrize("cbv_format", [CbvXmlFormat.NEVER_TRANSLATES, CbvXmlFormat.NO_PREFERENCE])
def test_keeping_values_writes_cbv_curies_as_urns(cbv_format: CbvXmlFormat) -> None:
    # A CURIE means the Web URI only under the JSON-LD context, which XML does not have.
    assert xml_value("bizStep", CURIE, cbv_format) == URN


def test_values_outside_the_cbv_stay_as_they_are() -> None:
    custom = "https://vocabulary.example.com/checking"
    assert xml_value("bizStep", custom, CbvXmlFormat.URN) == custom


def test_every_cbv_field_of_an_event_is_written_in_the_format() -> None:
    event = {
        "bizStep": "shipping",
        "disposition": "in_transit",
        "persistentDisposition": {"set": ["completeness_verified"], "unset": ["in_progress"]},
        "bizTransactionList": [{"type": "po", "bizTransaction": "urn:x:1"}],
        "sourceList": [{"type": "owning_party", "source": "urn:x:2"}],
        "destinationList": [{"type": "location", "destination": "urn:x:3"}],
        "errorDeclaration": {"declarationTime": "2024-01-01T00:00:00Z", "reason": "incorrect_data"},
        "action": "OBSERVE",
    }
    written = cbv_values_for_xml(event, CbvXmlFormat.URN)
    assert written == {
        "bizStep": URN,
        "disposition": "urn:epcglobal:cbv:disp:in_transit",
        "persistentDisposition": {
            "set": ["urn:epcglobal:cbv:disp:completeness_verified"],
            "unset": ["urn:epcglobal:cbv:disp:in_progress"],
        },
        "bizTransactionList": [{"type": "urn:epcglobal:cbv:btt:po", "bizTransaction": "urn:x:1"}],
        "sourceList": [{"type": "urn:epcglobal:cbv:sdt:owning_party", "source": "urn:x:2"}],
        "destinationList": [{"type": "urn:epcglobal:cbv:sdt:location", "destination": "urn:x:3"}],
        "errorDeclaration": {
            "declarationTime": "2024-01-01T00:00:00Z",
            "reason": "urn:epcglobal:cbv:er:incorrect_data",
        },
        "action": "OBSERVE",
    }


def test_an_unknown_header_value_is_refused() -> None:
    with pytest.raises(UnknownCbvFormat):
        parse_cbv_xml_format("Always_EPC_URN")


def test_no_header_is_no_preference() -> None:
    assert parse_cbv_xml_format(None) is CbvXmlFormat.NO_PREFERENCE
