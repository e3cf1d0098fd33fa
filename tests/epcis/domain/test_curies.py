"""CURIEs: which values are compact IRIs, and how events' IRI fields are expanded."""

from domain.epcis.curies import event_namespaces, expand_curie, with_iris_expanded

EX = {"ex": "https://ex.example/voc/"}


def test_a_curie_with_a_bound_prefix_expands_to_its_namespace() -> None:
    assert expand_curie("ex:step", EX) == "https://ex.example/voc/step"


def test_a_curie_with_an_unbound_prefix_is_an_iri_as_it_is() -> None:
    assert expand_curie("other:step", EX) == "other:step"


def test_urns_and_hierarchical_uris_are_never_curies() -> None:
    bound = {"urn": "https://u.example/", "https": "https://h.example/"}
    assert expand_curie("urn:epc:id:sgtin:4012345.011111.1", bound) == (
        "urn:epc:id:sgtin:4012345.011111.1"
    )
    assert expand_curie("https://id.gs1.org/01/1", bound) == "https://id.gs1.org/01/1"


def test_an_event_without_curies_is_returned_itself() -> None:
    event = {"bizStep": "shipping", "readPoint": {"id": "urn:epc:id:sgln:4012345.00001.0"}}
    assert with_iris_expanded(event, EX) is event


def test_every_iri_field_of_an_event_is_expanded_lists_and_members_alike() -> None:
    event = {
        "bizStep": "ex:step",
        "readPoint": {"id": "ex:dock"},
        "epcList": ["ex:item", "urn:epc:id:sgtin:4012345.011111.1"],
        "bizTransactionList": [{"type": "ex:order", "bizTransaction": "ex:o-1"}],
        "ex:note": "ex:not-an-iri",
    }
    assert with_iris_expanded(event, EX) == {
        "bizStep": "https://ex.example/voc/step",
        "readPoint": {"id": "https://ex.example/voc/dock"},
        "epcList": ["https://ex.example/voc/item", "urn:epc:id:sgtin:4012345.011111.1"],
        "bizTransactionList": [
            {"type": "https://ex.example/voc/order", "bizTransaction": "https://ex.example/voc/o-1"}
        ],
        "ex:note": "ex:not-an-iri",
    }
    assert event["bizStep"] == "ex:step"


def test_an_events_own_context_binds_over_its_documents_and_may_unbind() -> None:
    event = {"@context": [{"ex": "https://own.example/"}, {"gone": None}]}
    namespaces = event_namespaces(event, {"ex": "https://doc.example/", "gone": "https://g/"})
    assert namespaces == {"ex": "https://own.example/"}
