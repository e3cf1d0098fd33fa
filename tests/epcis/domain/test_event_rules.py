"""Item rules on epcis_event turned into the event queries they allow."""

import pytest

from domain.collections.filters import parse_filter
from domain.epcis.event_query import parse_event_query
from domain.epcis.event_rules import (
    EventRuleError,
    allowed_queries,
    rule_prefixes,
    unbound_curies,
)
from domain.epcis.query_curies import PrefixBindings

SGLN = "urn:epc:id:sgln:4012345.00001.0"


def queries(rule: object) -> tuple[object, ...]:
    return allowed_queries(parse_filter(rule))


def test_a_field_condition_becomes_the_matching_query_parameter() -> None:
    assert queries({"bizLocation": {"_eq": SGLN}}) == (
        parse_event_query({"EQ_bizLocation": [SGLN]}),
    )


def test_in_lists_the_allowed_values() -> None:
    assert queries({"bizStep": {"_in": ["shipping", "receiving"]}}) == (
        parse_event_query({"EQ_bizStep": ["shipping", "receiving"]}),
    )


def test_an_epc_condition_takes_patterns() -> None:
    pattern = "urn:epc:idpat:sgtin:4012345.*.*"
    assert queries({"epc": {"_eq": pattern}}) == (parse_event_query({"MATCH_anyEPC": [pattern]}),)


def test_conditions_on_several_fields_must_all_hold() -> None:
    assert queries({"bizStep": {"_eq": "shipping"}, "readPoint": {"_eq": SGLN}}) == (
        parse_event_query({"EQ_bizStep": ["shipping"], "EQ_readPoint": [SGLN]}),
    )


def test_or_allows_either_alternative() -> None:
    rule = {"_or": [{"bizStep": {"_eq": "shipping"}}, {"readPoint": {"_eq": SGLN}}]}
    assert queries(rule) == (
        parse_event_query({"EQ_bizStep": ["shipping"]}),
        parse_event_query({"EQ_readPoint": [SGLN]}),
    )


def test_and_over_or_distributes() -> None:
    rule = {
        "_and": [
            {"_or": [{"bizStep": {"_eq": "shipping"}}, {"bizStep": {"_eq": "receiving"}}]},
            {"bizLocation": {"_eq": SGLN}},
        ]
    }
    assert len(queries(rule)) == 2


def test_time_fields_take_lower_and_upper_bounds() -> None:
    rule = {
        "eventTime": {"_gte": "2024-01-01T00:00:00Z"},
        "recordTime": {"_lt": "2025-01-01T00:00:00Z"},
    }
    assert queries(rule) == (
        parse_event_query(
            {"GE_eventTime": ["2024-01-01T00:00:00Z"], "LT_recordTime": ["2025-01-01T00:00:00Z"]}
        ),
    )


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        ({"bizStep": {"_contains": "ship"}}, "takes _eq or _in"),
        ({"eventTime": {"_gt": "2024-01-01T00:00:00Z"}}, "takes _gte or _lt"),
        ({"colour": {"_eq": "red"}}, "not a field a rule on events can test"),
        ({"readPoint": {"id": {"_eq": SGLN}}}, "readPoint.id: not a field of an event"),
        ({"bizStep": {"id": {"_eq": SGLN}}}, "not relations"),
        ({"_and": [{"bizStep": {"_eq": "a"}}, {"bizStep": {"_eq": "b"}}]}, "tested twice"),
        ({"eventTime": {"_gte": "yesterday"}}, "eventTime"),
        ({"bizStep": {"_in": []}}, "non-empty"),
    ],
)
def test_a_rule_events_cannot_answer_is_refused_with_the_reason(rule: object, reason: str) -> None:
    with pytest.raises(EventRuleError, match=reason):
        queries(rule)


EX = "https://vocabulary.example.com/"
BOUND = PrefixBindings({"ex": EX})


def test_a_curie_value_is_read_by_the_bindings_given() -> None:
    rule = parse_filter({"bizStep": {"_eq": "ex:repack"}})
    assert allowed_queries(rule, BOUND) == (parse_event_query({"EQ_bizStep": [EX + "repack"]}),)


def test_a_curie_field_name_is_read_by_the_bindings_given() -> None:
    rule = parse_filter({"ilmd": {"ex:lot": {"_eq": "L1"}}})
    assert allowed_queries(rule, BOUND) == (parse_event_query({f"EQ_ILMD_{EX}lot": ["L1"]}),)


def test_a_curie_whose_prefix_is_bound_two_ways_is_an_error() -> None:
    rule = parse_filter({"bizStep": {"_eq": "ex:repack"}})
    with pytest.raises(EventRuleError, match="more than one namespace"):
        allowed_queries(rule, PrefixBindings(ambiguous=frozenset({"ex"})))


def test_the_prefixes_of_a_rule_are_those_of_its_curie_values_and_fields() -> None:
    rule = parse_filter(
        {"_or": [{"bizStep": {"_eq": "ex:repack"}}, {"ilmd": {"lot:id": {"_nnull": True}}}]}
    )
    assert rule_prefixes(rule) == {"ex", "lot"}


def test_unbound_curies_leave_out_the_epcis_contexts_own_prefixes() -> None:
    rule = parse_filter({"bizStep": {"_in": ["ex:repack", "zz:pack", "cbv:BizStep-packing"]}})
    assert unbound_curies(rule, BOUND) == ["zz:pack"]
