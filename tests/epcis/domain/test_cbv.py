"""normalise_cbv: bare words, CBV URNs and GS1 Web URIs of one CBV value are one value."""

import json
from importlib import resources
from typing import Any

import pytest

from domain.epcis.cbv import (
    VOCABULARIES,
    is_standard_bare_word,
    is_standard_value,
    normalise_cbv,
    replace_cbv_urns,
)

# Standard kinds, one standard word of each, its URN (if the vocabulary had one) and Web URI.
SPELLINGS = [
    (
        "bizStep",
        "shipping",
        "urn:epcglobal:cbv:bizstep:shipping",
        "https://ref.gs1.org/cbv/BizStep-shipping",
    ),
    (
        "disposition",
        "in_transit",
        "urn:epcglobal:cbv:disp:in_transit",
        "https://ref.gs1.org/cbv/Disp-in_transit",
    ),
    ("bizTransactionType", "po", "urn:epcglobal:cbv:btt:po", "https://ref.gs1.org/cbv/BTT-po"),
    (
        "sourceDestType",
        "owning_party",
        "urn:epcglobal:cbv:sdt:owning_party",
        "https://ref.gs1.org/cbv/SDT-owning_party",
    ),
    (
        "errorReason",
        "did_not_occur",
        "urn:epcglobal:cbv:er:did_not_occur",
        "https://ref.gs1.org/cbv/ER-did_not_occur",
    ),
    ("measurementType", "Temperature", None, "https://gs1.org/voc/Temperature"),
    ("sensorException", "ALARM_CONDITION", None, "https://gs1.org/voc/ALARM_CONDITION"),
    ("component", "latitude", None, "https://ref.gs1.org/cbv/Comp-latitude"),
]


@pytest.mark.parametrize(("kind", "word", "urn", "web"), SPELLINGS)
def test_bare_word_becomes_the_web_uri(kind: str, word: str, urn: str | None, web: str) -> None:
    assert normalise_cbv(kind, word) == web


@pytest.mark.parametrize(("kind", "word", "urn", "web"), [s for s in SPELLINGS if s[2]])
def test_cbv_urn_becomes_the_web_uri(kind: str, word: str, urn: str, web: str) -> None:
    assert normalise_cbv(kind, urn) == web


@pytest.mark.parametrize(("kind", "word", "urn", "web"), SPELLINGS)
def test_web_uri_is_already_canonical(kind: str, word: str, urn: str | None, web: str) -> None:
    assert normalise_cbv(kind, web) == web


@pytest.mark.parametrize(("kind", "word", "urn", "web"), [s for s in SPELLINGS if s[2]])
def test_cbv_curie_becomes_the_web_uri(kind: str, word: str, urn: str, web: str) -> None:
    # The EPCIS context binds `cbv` to https://ref.gs1.org/cbv/ (JSON-LD compact IRIs).
    curie = "cbv:" + web.removeprefix("https://ref.gs1.org/cbv/")
    assert normalise_cbv(kind, curie) == web


def test_cbv_curie_of_a_non_standard_word_still_maps_to_its_web_uri() -> None:
    assert normalise_cbv("bizStep", "cbv:BizStep-cleaning") == (
        "https://ref.gs1.org/cbv/BizStep-cleaning"
    )


def test_a_cbv_scheme_with_an_authority_is_no_curie() -> None:
    assert normalise_cbv("bizStep", "cbv://example.com/shipping") == "cbv://example.com/shipping"


def test_query_and_event_spellings_meet_in_one_value() -> None:
    # The capture side indexes what the event says, the query side what the client asks.
    event_side = normalise_cbv("bizStep", "urn:epcglobal:cbv:bizstep:shipping")
    assert normalise_cbv("bizStep", "shipping") == event_side
    assert normalise_cbv("bizStep", "https://ref.gs1.org/cbv/BizStep-shipping") == event_side


def test_urn_of_a_non_standard_word_still_maps_to_its_web_uri() -> None:
    assert normalise_cbv("bizStep", "urn:epcglobal:cbv:bizstep:cleaning") == (
        "https://ref.gs1.org/cbv/BizStep-cleaning"
    )


def test_unknown_bare_word_is_unchanged() -> None:
    assert normalise_cbv("bizStep", "cleaning") == "cleaning"


def test_bare_word_of_another_vocabulary_is_unchanged() -> None:
    assert normalise_cbv("bizStep", "in_transit") == "in_transit"


def test_private_vocabulary_uri_is_unchanged() -> None:
    uri = "https://example.com/vocab/bizstep/exampling"
    assert normalise_cbv("bizStep", uri) == uri


def test_unknown_kind_still_maps_cbv_urns() -> None:
    assert normalise_cbv("other", "urn:epcglobal:cbv:disp:active") == (
        "https://ref.gs1.org/cbv/Disp-active"
    )
    assert normalise_cbv("other", "active") == "active"


def test_bare_words_are_case_sensitive() -> None:
    assert not is_standard_bare_word("bizStep", "Shipping")
    assert normalise_cbv("bizStep", "Shipping") == "Shipping"


def test_is_standard_bare_word_knows_each_vocabulary() -> None:
    assert is_standard_bare_word("disposition", "recalled")
    assert not is_standard_bare_word("bizStep", "recalled")
    assert not is_standard_bare_word("nonsense", "recalled")


@pytest.mark.parametrize(
    "value",
    [
        "receiving",
        "urn:epcglobal:cbv:bizstep:receiving",
        "https://ref.gs1.org/cbv/BizStep-receiving",
        "cbv:BizStep-receiving",
    ],
)
def test_is_standard_value_accepts_every_spelling(value: str) -> None:
    assert is_standard_value("bizStep", value)


def test_is_standard_value_rejects_non_standard_values() -> None:
    assert not is_standard_value("bizStep", "urn:epcglobal:cbv:bizstep:cleaning")
    assert not is_standard_value("bizStep", "https://example.com/bizstep/shipping")
    assert not is_standard_value("disposition", "shipping")
    assert not is_standard_value("disposition", "cbv:BizStep-shipping")


def test_replace_cbv_urns_rewrites_every_vocabulary_prefix_in_a_text() -> None:
    assert replace_cbv_urns("urn:epcglobal:cbv:sdt:location") == (
        "https://ref.gs1.org/cbv/SDT-location"
    )
    assert replace_cbv_urns("urn:epcglobal:cbv:bt:4012345000009:PO1") == (
        "urn:epcglobal:cbv:bt:4012345000009:PO1"
    )


def _context() -> dict[str, Any]:
    # The EPCIS 2.0 JSON-LD context, as bundled with the reference hash package.
    package = resources.files("epcis_event_hash_generator")
    name = "e532647e8eb371379b8b0e8602d8981c8566bc60f7351f22c76a5bc865962008.jsonld"
    context: dict[str, Any] = json.loads(package.joinpath(name).read_text())["@context"]
    return context


def _terms(scoped: dict[str, Any]) -> set[str]:
    return {word for word in scoped["@context"] if not word.startswith("@")}


def test_vocabularies_hold_exactly_the_words_of_the_epcis_2_0_context() -> None:
    context = _context()
    report = context["sensorElementList"]["@context"]["sensorReport"]["@context"]
    expected = {
        "bizStep": _terms(context["bizStep"]),
        "disposition": _terms(context["disposition"]),
        "bizTransactionType": _terms(context["bizTransactionList"]["@context"]["type"]),
        "sourceDestType": _terms(context["sourceList"]["@context"]["type"]),
        "errorReason": _terms(context["errorDeclaration"]["@context"]["reason"]),
        "measurementType": _terms(report["type"]),
        "sensorException": _terms(report["exception"]),
        "component": _terms(report["component"]),
    }
    assert {kind: set(v.words) for kind, v in VOCABULARIES.items()} == expected
