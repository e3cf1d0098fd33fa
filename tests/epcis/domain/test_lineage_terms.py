"""What an event says about lineage, without a database."""

from typing import Any

from domain.epcis.index_terms import event_terms
from domain.epcis.lineage_terms import End, LineageTerms, is_class, lot_class
from domain.epcis.lineage_terms import lineage_terms as terms_of
from domain.gs1.link_to_urn import epc_urn_at

PALLET = "urn:epc:id:sscc:4012345.0000000002"


def lineage_terms(event: dict[str, Any]) -> LineageTerms:
    event = {"eventTime": "2024-03-01T10:00:00Z", "eventTimeZoneOffset": "+00:00", **event}
    return terms_of(event, event_terms(event, {}))


def test_a_digital_link_naming_lot_and_serial_names_the_lot_class() -> None:
    assert (
        lot_class("https://example.com/01/04012345111118/10/L%2F7/21/77")
        == "https://id.gs1.org/01/04012345111118/10/L%2F7"
    )
    assert lot_class("urn:epc:id:sgtin:4012345.011111.77") is None
    assert lot_class("urn:epc:id:sgtin:4012345.011111.77", "L1") == (
        "https://id.gs1.org/01/04012345111118/10/L1"
    )


def test_gtins_and_lots_are_classes_and_serials_instances() -> None:
    assert is_class("https://id.gs1.org/01/04012345111118")
    assert is_class("https://id.gs1.org/01/04012345111118/10/L1")
    assert not is_class("https://id.gs1.org/01/04012345111118/21/1")
    assert not is_class("https://id.gs1.org/00/040123450000000023")


def test_a_delete_naming_no_children_ends_them_all() -> None:
    event = {"type": "AggregationEvent", "action": "DELETE", "parentID": PALLET}
    assert lineage_terms(event).ends == [
        End("contained_in", "https://id.gs1.org/00/040123450000000023", None)
    ]


def test_an_observed_item_makes_no_membership_from_ilmd() -> None:
    event = {
        "type": "ObjectEvent",
        "action": "OBSERVE",
        "epcList": ["urn:epc:id:sgtin:4012345.011111.1"],
        "ilmd": {"cbvmda:lotNumber": "L1"},
    }
    assert lineage_terms(event).links == []


def test_a_commissioned_item_is_a_member_of_its_ilmd_lot() -> None:
    event = {
        "type": "ObjectEvent",
        "action": "ADD",
        "epcList": ["urn:epc:id:sgtin:4012345.011111.1"],
        "ilmd": {"cbvmda:lotNumber": "L1"},
    }
    (link,) = lineage_terms(event).links
    assert (link.relation, link.target_prefix) == ("member_of", 7)
    assert epc_urn_at(link.target, 7) == "urn:epc:class:lgtin:4012345.011111.L1"


def test_a_link_keeps_the_company_prefixes_its_event_spelled() -> None:
    event = {
        "type": "ObjectEvent",
        "action": "ADD",
        "epcList": [
            "https://id.gs1.org/01/04012345111118/21/9",
            "urn:epc:id:sgtin:4012345.011111.10",
        ],
        "ilmd": {"cbvmda:lotNumber": "L1"},
    }
    first, second = lineage_terms(event).links
    assert (first.source_prefix, first.target_prefix) == (7, 7)
    assert epc_urn_at(first.source, 7) == "urn:epc:id:sgtin:4012345.011111.9"
    assert epc_urn_at(first.target, 7) == "urn:epc:class:lgtin:4012345.011111.L1"
    assert second.target == first.target


def test_what_an_aggregation_adds_makes_no_link_of_its_own() -> None:
    event = {
        "type": "AggregationEvent",
        "action": "ADD",
        "parentID": PALLET,
        "childEPCs": ["urn:epc:id:sgtin:4012345.011111.9"],
    }
    assert lineage_terms(event) == LineageTerms()
