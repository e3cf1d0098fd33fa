"""GS1-EPC-Format: which fields of an event change, and into what."""

import copy
from collections.abc import Mapping
from typing import Any

import orjson
import pytest

from domain.epcis.epc_format import (
    EpcFormat,
    UnknownEpcFormat,
    applied_format,
    epc_converter,
    epcs_in_format,
    event_texts_in_format,
    parse_epc_format,
)
from domain.gs1.link_to_urn import CompanyPrefixes

PREFIXES = CompanyPrefixes(["4012345"])
SGTIN = "urn:epc:id:sgtin:4012345.011111.1001"
SGTIN_LINK = "https://id.gs1.org/01/04012345111118/21/1001"
EVENT = {
    "type": "AggregationEvent",
    "eventID": "urn:uuid:00000000-0000-4000-8000-000000000001",
    "parentID": "urn:epc:id:sscc:4012345.0000000001",
    "childEPCs": [SGTIN, "urn:epc:id:bic:CSQU3054383"],
    "childQuantityList": [{"epcClass": "urn:epc:class:lgtin:4012345.011111.L1", "quantity": 2}],
    "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0", "ex:door": "3"},
    "bizLocation": {"id": "https://example.com/sites/7"},
    "sourceList": [{"type": "owning_party", "source": "urn:epc:id:pgln:4012345.00000"}],
    "destinationList": [{"type": "location", "destination": "urn:epc:id:sgln:4012345.00002.0"}],
    "bizTransactionList": [{"type": "po", "bizTransaction": "urn:epc:id:gdti:4012345.00009.7"}],
    "bizStep": "packing",
}


def as_links(event: dict[str, Any]) -> Mapping[str, Any]:
    converter = epc_converter(EpcFormat.DIGITAL_LINK, PREFIXES)
    assert converter is not None
    return epcs_in_format(event, converter)


def test_every_field_naming_an_epc_becomes_a_digital_link() -> None:
    event = as_links(EVENT)
    assert event["parentID"] == "https://id.gs1.org/00/040123450000000016"
    assert event["childEPCs"] == [SGTIN_LINK, "urn:epc:id:bic:CSQU3054383"]
    assert event["childQuantityList"] == [
        {"epcClass": "https://id.gs1.org/01/04012345111118/10/L1", "quantity": 2}
    ]
    assert event["readPoint"] == {"id": "https://id.gs1.org/414/4012345000016", "ex:door": "3"}
    assert event["sourceList"] == [
        {"type": "owning_party", "source": "https://id.gs1.org/417/4012345000009"}
    ]
    assert event["destinationList"][0]["destination"] == "https://id.gs1.org/414/4012345000023"
    assert event["bizTransactionList"][0]["bizTransaction"] == (
        "https://id.gs1.org/253/40123450000927"
    )


def test_what_is_no_gs1_key_and_every_other_field_stay_as_captured() -> None:
    event = as_links(EVENT)
    assert event["bizLocation"] == {"id": "https://example.com/sites/7"}
    assert event["bizStep"] == "packing"
    assert event["eventID"] == EVENT["eventID"]


def test_digital_links_become_urns_where_the_company_prefix_is_known() -> None:
    converter = epc_converter(EpcFormat.EPC_URN, PREFIXES)
    assert converter is not None
    event = epcs_in_format(
        {"epcList": [SGTIN_LINK, "https://id.gs1.org/01/09506000134352/21/1"]}, converter
    )
    assert event["epcList"] == [SGTIN, "https://id.gs1.org/01/09506000134352/21/1"]


@pytest.mark.parametrize("epc_format", [EpcFormat.NO_PREFERENCE, EpcFormat.NEVER_TRANSLATES])
def test_no_preference_and_never_translates_convert_nothing(epc_format: EpcFormat) -> None:
    assert epc_converter(epc_format, PREFIXES) is None


def test_an_event_text_with_nothing_to_convert_is_returned_as_it_came() -> None:
    text = '{"type":"ObjectEvent",  "epcList":["urn:epc:id:bic:CSQU3054383"]}'
    assert event_texts_in_format([text], lambda epc: epc) == [text]


def test_an_event_text_with_epcs_to_convert_is_encoded_again() -> None:
    converter = epc_converter(EpcFormat.DIGITAL_LINK, PREFIXES)
    assert converter is not None
    [text] = event_texts_in_format([orjson.dumps({"epcList": [SGTIN]}).decode()], converter)
    assert orjson.loads(text) == {"epcList": [SGTIN_LINK]}


def test_the_header_values_are_read_in_any_case() -> None:
    assert parse_epc_format("always_epc_urn") is EpcFormat.EPC_URN


@pytest.mark.parametrize("value", [None, "", "  "])
def test_no_header_means_digital_link(value: str | None) -> None:
    assert parse_epc_format(value) is EpcFormat.DIGITAL_LINK


def test_no_preference_is_answered_as_captured() -> None:
    assert applied_format(EpcFormat.NO_PREFERENCE) is EpcFormat.NEVER_TRANSLATES
    assert epc_converter(EpcFormat.NO_PREFERENCE, PREFIXES) is None


@pytest.mark.parametrize(
    "epc_format", [EpcFormat.DIGITAL_LINK, EpcFormat.EPC_URN, EpcFormat.NEVER_TRANSLATES]
)
def test_a_format_asked_for_is_the_one_applied(epc_format: EpcFormat) -> None:
    assert applied_format(epc_format) is epc_format


def test_a_value_the_binding_does_not_define_is_refused() -> None:
    with pytest.raises(UnknownEpcFormat, match="Always_URN"):
        parse_epc_format("Always_URN")


def test_an_event_whose_epcs_all_stay_as_they_are_is_returned_itself() -> None:
    event = {"epcList": ["urn:epc:id:bic:CSQU3054383"], "readPoint": {"id": "urn:ex:door"}}
    assert epcs_in_format(event, lambda epc: epc) is event


def test_converting_an_event_leaves_the_event_as_it_was() -> None:
    before = copy.deepcopy(EVENT)
    converted = as_links(EVENT)
    assert before == EVENT
    assert converted != EVENT
