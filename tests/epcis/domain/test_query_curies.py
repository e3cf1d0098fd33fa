"""CURIEs in query parameters: which values are read as IRIs, and how they expand."""

import pytest

from domain.epcis.event_query import QueryParameterError
from domain.epcis.query_curies import expand_query, extension_prefixes, query_prefixes

EX = {"ex": "https://ex.example/"}


def test_only_parameters_naming_iris_have_their_curies_read() -> None:
    params = {"EQ_bizStep": ["ex:a|ex:b"], "EQ_eventID": ["ex:id"], "eventType": ["ObjectEvent"]}
    assert query_prefixes(params) == {"ex"}
    assert expand_query(params, EX) == {
        "EQ_bizStep": ["https://ex.example/a", "https://ex.example/b"],
        "EQ_eventID": ["ex:id"],
        "eventType": ["ObjectEvent"],
    }


def test_the_type_in_a_typed_parameters_name_is_read_too() -> None:
    params = {"EQ_source_ex:owner": ["ex:party"]}
    assert expand_query(params, EX) == {
        "EQ_source_https://ex.example/owner": ["https://ex.example/party"]
    }


def test_a_curie_with_an_ambiguous_prefix_is_refused_naming_its_parameter() -> None:
    with pytest.raises(QueryParameterError, match=r"^EQ_disposition: "):
        expand_query({"EQ_disposition": ["ex:held"]}, {}, ambiguous={"ex"})


def test_the_gs1_extensions_header_lists_prefix_namespace_pairs() -> None:
    assert extension_prefixes("ex=https://ex.example/, rail = urn:gs1:epcisapp:rail:") == {
        "ex": "https://ex.example/",
        "rail": "urn:gs1:epcisapp:rail:",
    }
    with pytest.raises(QueryParameterError, match="prefix=namespace"):
        extension_prefixes("ex")
