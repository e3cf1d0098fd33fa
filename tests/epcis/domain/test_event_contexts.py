"""One `@context` for a document of events captured under different ones."""

import orjson

from domain.epcis.event_contexts import in_one_document

A = orjson.dumps({"ex": "https://a.example/"}).decode()
B = orjson.dumps({"ex": "https://b.example/"}).decode()


def test_the_document_binds_each_prefix_as_the_first_event_did() -> None:
    namespaces, events = in_one_document([('{"ex:x":1}', A), ('{"ex:x":2}', B)])
    assert namespaces == {"ex": "https://a.example/"}
    assert orjson.loads(events[1])["@context"] == {"ex": "https://b.example/"}


def test_events_that_agree_with_the_document_are_sent_as_stored() -> None:
    stored = ['{"ex:x":1}', '{"ex:x":2}', '{"type":"ObjectEvent"}']
    namespaces, events = in_one_document([(stored[0], A), (stored[1], A), (stored[2], None)])
    assert namespaces == {"ex": "https://a.example/"}
    assert events == stored


def test_an_event_using_a_prefix_its_document_did_not_bind_unbinds_it() -> None:
    _, events = in_one_document([('{"ex:x":1}', A), ('{"ex:y":2}', None)])
    assert orjson.loads(events[1]) == {"@context": {"ex": None}, "ex:y": 2}


def test_a_prefix_the_epcis_context_binds_is_never_unbound() -> None:
    rdfs = orjson.dumps({"rdfs": "http://www.w3.org/2000/01/rdf-schema#"}).decode()
    _, events = in_one_document([('{"rdfs:comment":"a"}', rdfs), ('{"rdfs:comment":"b"}', None)])
    assert events[1] == '{"rdfs:comment":"b"}'


def test_an_event_that_brought_its_own_context_keeps_it_last_so_it_still_wins() -> None:
    stored = orjson.dumps({"@context": [{"ext": "https://e.example/"}], "ex:x": 2}).decode()
    _, events = in_one_document([('{"ex:x":1}', A), (stored, B)])
    assert orjson.loads(events[1])["@context"] == [
        {"ex": "https://b.example/"},
        {"ext": "https://e.example/"},
    ]
