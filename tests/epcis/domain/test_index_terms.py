"""The index terms of an event hold text only: a value of another JSON type is not
matched on, and never reaches the query tables' text columns."""

from typing import Any

import pytest

from domain.epcis.index_terms import event_terms
from tests.epcis.documents import object_event


@pytest.mark.parametrize("value", [["ADD"], {"a": 1}, 5, True])
def test_an_action_that_is_not_text_is_not_indexed(value: Any) -> None:
    assert event_terms(object_event(action=value), {}).action is None


@pytest.mark.parametrize("value", [["urn:x:1"], {"a": 1}, 5])
def test_a_transformation_id_that_is_not_text_is_not_indexed(value: Any) -> None:
    assert event_terms(object_event(transformationID=value), {}).transformation_id is None


def test_text_values_are_indexed() -> None:
    terms = event_terms(object_event(action="ADD", transformationID="urn:x:1"), {})
    assert (terms.action, terms.transformation_id) == ("ADD", "urn:x:1")


def test_a_urn_tells_the_length_of_its_company_prefix() -> None:
    urns = ["urn:epc:id:sgtin:4012345.011111.1", "urn:epc:id:sscc:952123.04000000000"]
    terms = event_terms(object_event(epcList=urns), {})
    assert [terms.prefix_lengths[canonical] for _, canonical in terms.epcs] == [7, 6]


def test_a_digital_link_takes_the_prefix_of_a_urn_beside_it_that_starts_its_key() -> None:
    event = {
        "type": "AggregationEvent",
        "eventTime": "2024-03-01T10:00:00Z",
        "eventTimeZoneOffset": "+00:00",
        "action": "ADD",
        "parentID": "urn:epc:id:sscc:4012345.0000000002",
        "childEPCs": [
            "https://id.gs1.org/01/04012345111118/21/9",
            "https://id.gs1.org/01/05412345000013/21/9",
        ],
        "childQuantityList": [{"epcClass": "https://id.gs1.org/01/04012345111118"}],
    }
    lengths = event_terms(event, {}).prefix_lengths
    assert lengths == {
        "https://id.gs1.org/00/040123450000000023": 7,
        "https://id.gs1.org/01/04012345111118/21/9": 7,
        "https://id.gs1.org/01/04012345111118": 7,
    }
