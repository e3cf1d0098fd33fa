"""The journal of one event ID: which records are new, already present or a conflict."""

from domain.epcis.event_identity import Admission, Journal, Record, declaration_key
from tests.epcis.documents import object_event

EVENT = object_event(epcList=["urn:epc:id:sgtin:4012345.011111.1"])
DECLARATION = {"declarationTime": "2024-03-05T10:00:00Z", "reason": "did_not_occur"}


def record(event: dict[str, object], namespaces: dict[str, str] | None = None) -> Record:
    return Record(event, namespaces or {})


def test_the_first_record_of_an_event_id_is_new() -> None:
    assert Journal().admit(record(EVENT)) is Admission.NEW


def test_the_event_again_is_already_present() -> None:
    journal = Journal([record(EVENT)])
    assert journal.admit(record(dict(EVENT, recordTime="2030-01-01T00:00:00Z"))) is (
        Admission.PRESENT
    )


def test_other_content_under_the_same_id_is_a_conflict() -> None:
    journal = Journal([record(EVENT)])
    assert journal.admit(record(dict(EVENT, bizStep="receiving"))) is Admission.CONFLICT


def test_a_declaration_of_the_same_content_is_a_new_record_at_the_next_version() -> None:
    journal = Journal([record(EVENT)])
    assert journal.next_version == 2
    assert journal.admit(record(dict(EVENT, errorDeclaration=DECLARATION))) is Admission.NEW
    assert journal.next_version == 3


def test_a_declaration_spelled_otherwise_is_the_same_declaration() -> None:
    journal = Journal([record(EVENT), record(dict(EVENT, errorDeclaration=DECLARATION))])
    respelled = {
        "declarationTime": "2024-03-05T11:00:00+01:00",
        "reason": "urn:epcglobal:cbv:er:did_not_occur",
    }
    assert journal.admit(record(dict(EVENT, errorDeclaration=respelled))) is Admission.PRESENT


def test_extension_names_in_a_declaration_compare_by_their_iris() -> None:
    first = declaration_key(
        {"errorDeclaration": {**DECLARATION, "a:note": "x"}}, {"a": "https://ns.example/"}
    )
    second = declaration_key(
        {"errorDeclaration": {**DECLARATION, "b:note": "x"}}, {"b": "https://ns.example/"}
    )
    assert first == second


def test_corrective_event_ids_compare_as_a_set() -> None:
    one = {**DECLARATION, "correctiveEventIDs": ["urn:uuid:1", "urn:uuid:2"]}
    other = {**DECLARATION, "correctiveEventIDs": ["urn:uuid:2", "urn:uuid:1"]}
    assert declaration_key({"errorDeclaration": one}, {}) == declaration_key(
        {"errorDeclaration": other}, {}
    )
