"""The EPCIS 2.0 schema and the document validator, one rule at a time."""

import copy
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from domain.epcis.violations import Violation
from infrastructure.epcis_schema import DocumentValidator, load_schema

CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"
SGTIN = "urn:epc:id:sgtin:4012345.011111.1001"
SGLN = "urn:epc:id:sgln:4012345.00001.0"
EVENT = "epcisBody.eventList.0"


def document(*events: dict[str, Any], **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "@context": [CONTEXT, {"example": "https://ns.example.com/epcis/"}],
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": "2024-03-01T10:00:00.000Z",
        "epcisBody": {"eventList": list(events)},
    }
    doc.update(fields)
    return {key: value for key, value in doc.items() if value is not None}


def query_document(*events: dict[str, Any]) -> dict[str, Any]:
    doc = document()
    doc["type"] = "EPCISQueryDocument"
    doc["epcisBody"] = {
        "queryResults": {
            "queryName": "SimpleEventQuery",
            "resultsBody": {"eventList": list(events)},
        }
    }
    return doc


def when(event_type: str, **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": event_type,
        "eventTime": "2024-03-01T10:00:00.000+01:00",
        "eventTimeZoneOffset": "+01:00",
    }
    event.update(fields)
    return {key: value for key, value in event.items() if value is not None}


def object_event(**fields: Any) -> dict[str, Any]:
    return when("ObjectEvent", **{"epcList": [SGTIN], "action": "OBSERVE", **fields})


@pytest.fixture(scope="module")
def validator() -> DocumentValidator:
    return DocumentValidator()


def problems(validator: DocumentValidator, doc: Any) -> list[tuple[str, str]]:
    return [(v.location, v.reason) for v in validator.validate_capture(doc)]


def locations(validator: DocumentValidator, doc: Any) -> list[str]:
    return [v.location for v in validator.validate_capture(doc)]


# The schema file


def test_the_schema_is_a_draft_7_schema_shipped_as_package_data() -> None:
    schema = load_schema()

    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert {"EPCISDocument", "EPCISQueryDocument"} <= set(schema["definitions"])


def test_the_schema_defines_the_five_event_types() -> None:
    event = load_schema()["definitions"]["event"]

    assert event["properties"]["type"]["anyOf"][0]["enum"] == [
        "ObjectEvent",
        "AggregationEvent",
        "TransactionEvent",
        "TransformationEvent",
        "AssociationEvent",
    ]


# Valid minimal documents

MINIMAL_EVENTS = {
    "ObjectEvent": when("ObjectEvent", action="ADD", epcList=[SGTIN]),
    "AggregationEvent": when(
        "AggregationEvent", action="ADD", parentID="urn:epc:id:sscc:4012345.0000000001"
    ),
    "TransactionEvent": when(
        "TransactionEvent",
        action="ADD",
        bizTransactionList=[{"bizTransaction": "urn:epcglobal:cbv:bt:4012345000009:PO-1"}],
    ),
    "TransformationEvent": when(
        "TransformationEvent", inputEPCList=[SGTIN], outputEPCList=[SGTIN + "2"]
    ),
    "AssociationEvent": when(
        "AssociationEvent", action="ADD", parentID="urn:epc:id:grai:4012345.55555.987"
    ),
}


@pytest.mark.parametrize("event_type", sorted(MINIMAL_EVENTS))
def test_a_minimal_document_of_each_event_type_is_valid(
    validator: DocumentValidator, event_type: str
) -> None:
    assert validator.validate_capture(document(MINIMAL_EVENTS[event_type])) == []


def test_a_transformation_event_with_only_a_transformation_id_is_valid(
    validator: DocumentValidator,
) -> None:
    event = when("TransformationEvent", transformationID="urn:epc:id:gdti:4012345.00001.1")

    assert validator.validate_capture(document(event)) == []


def test_an_object_event_with_only_a_quantity_list_is_valid(validator: DocumentValidator) -> None:
    quantities = [{"epcClass": "urn:epc:class:lgtin:4012345.011111.A1", "quantity": 5}]

    event = object_event(epcList=None, quantityList=quantities)

    assert validator.validate_capture(document(event)) == []


# Document level


def test_a_document_with_no_events_is_accepted_as_gs1s_schema_accepts_it(
    validator: DocumentValidator,
) -> None:
    assert validator.validate_capture(document()) == []


def test_a_document_without_context_is_rejected(validator: DocumentValidator) -> None:
    doc = document(object_event())
    del doc["@context"]

    assert problems(validator, doc) == [("(root)", "'@context' is a required property")]


def test_a_document_of_the_wrong_type_is_rejected(validator: DocumentValidator) -> None:
    assert problems(validator, document(object_event(), type="EPCISMasterDataDocument")) == [
        ("type", "'EPCISMasterDataDocument' is not one of ['EPCISDocument']")
    ]


def test_capture_refuses_a_query_document_as_the_rest_binding_captures_an_epcis_document(
    validator: DocumentValidator,
) -> None:
    """GS1's schema validates query documents too; `POST /capture` takes an EPCISDocument."""
    assert problems(validator, query_document(object_event())) == [
        ("type", "Capture takes an EPCISDocument, not an EPCISQueryDocument")
    ]


def test_capture_refuses_a_bare_event_as_the_rest_binding_captures_an_epcis_document(
    validator: DocumentValidator,
) -> None:
    """GS1's schema validates a single event too; capture takes it inside an EPCISDocument."""
    event = {**object_event(), "@context": CONTEXT}

    assert ("type", "'ObjectEvent' is not one of ['EPCISDocument']") in problems(validator, event)


@pytest.mark.parametrize("version", ["2.0", "2.0.1", "2.1", "2"])
def test_any_version_number_is_a_schema_version_as_gs1s_schema_allows(
    validator: DocumentValidator, version: str
) -> None:
    assert validator.validate_capture(document(object_event(), schemaVersion=version)) == []


@pytest.mark.parametrize("version", ["two", "2.0-beta", "v2", ""])
def test_a_schema_version_that_is_no_version_number_is_rejected(
    validator: DocumentValidator, version: str
) -> None:
    assert problems(validator, document(object_event(), schemaVersion=version)) == [
        ("schemaVersion", f"{version!r} is not a version number such as '2.0'")
    ]


def test_a_schema_version_is_text(validator: DocumentValidator) -> None:
    assert problems(validator, document(object_event(), schemaVersion=2.0)) == [
        ("schemaVersion", "2.0 is not of type 'string'")
    ]


def test_a_body_that_is_not_an_object_is_a_root_violation(validator: DocumentValidator) -> None:
    assert problems(validator, [1, 2, 3]) == [("(root)", "[1, 2, 3] is not of type 'object'")]


def test_data_that_is_not_json_is_a_root_violation(validator: DocumentValidator) -> None:
    [violation] = validator.validate_capture(document(object_event(epcList={SGTIN})))

    assert violation.location == "(root)"
    assert "not JSON data" in violation.reason


def test_a_blank_node_document_id_is_accepted(validator: DocumentValidator) -> None:
    assert validator.validate_capture(document(object_event(), id="_:document1")) == []


def test_a_json_ld_context_may_be_a_single_uri(validator: DocumentValidator) -> None:
    assert validator.validate_capture(document(object_event(), **{"@context": CONTEXT})) == []


def test_an_empty_context_list_is_accepted_as_gs1s_schema_accepts_it(
    validator: DocumentValidator,
) -> None:
    assert validator.validate_capture(document(object_event(), **{"@context": []})) == []


@pytest.mark.parametrize("field", ["sender", "receiver", "instanceIdentifier"])
def test_empty_header_text_is_accepted_as_gs1s_schema_accepts_it(
    validator: DocumentValidator, field: str
) -> None:
    assert validator.validate_capture(document(object_event(), **{field: ""})) == []


# Extensions


def test_a_namespaced_extension_field_is_accepted_anywhere_extensions_are_allowed(
    validator: DocumentValidator,
) -> None:
    event = object_event(
        action="ADD",
        readPoint={"id": SGLN, "example:shelf": "3"},
        ilmd={"example:batch": {"nested": "anything goes inside an extension"}},
        **{"example:note": "x"},
    )

    assert validator.validate_capture(document(event, **{"example:origin": "test"})) == []


@pytest.mark.parametrize("place", ["readPoint", "bizLocation"])
def test_a_place_may_carry_fields_without_a_prefix_as_gs1s_schema_allows(
    validator: DocumentValidator, place: str
) -> None:
    event = object_event(**{place: {"id": SGLN, "name": "Dock 3", "gate": {"number": 7}}})

    assert validator.validate_capture(document(event)) == []


def test_a_place_still_needs_an_id(validator: DocumentValidator) -> None:
    event = object_event(readPoint={"name": "Dock 3"})

    assert problems(validator, document(event)) == [
        (f"{EVENT}.readPoint", "'id' is a required property")
    ]


def test_an_epcis_body_may_carry_fields_beside_its_event_list_as_gs1s_schema_allows(
    validator: DocumentValidator,
) -> None:
    doc = document(object_event())
    doc["epcisBody"]["batch"] = {"number": 12}

    assert validator.validate_capture(doc) == []


def test_an_event_field_without_a_prefix_is_rejected_at_the_field(
    validator: DocumentValidator,
) -> None:
    [(location, reason)] = problems(validator, document(object_event(myField="x")))

    assert location == f"{EVENT}.myField"
    assert reason == (
        "'myField' is not a field of an ObjectEvent; user extension fields need a namespace "
        "prefix declared in @context, e.g. 'example:myField'"
    )


def test_an_ilmd_field_without_a_prefix_is_rejected(validator: DocumentValidator) -> None:
    event = object_event(action="ADD", ilmd={"example:batch": "1", "lotNumber": "L1"})

    assert locations(validator, document(event)) == [f"{EVENT}.ilmd.lotNumber"]


@pytest.mark.parametrize("event_type", sorted(MINIMAL_EVENTS))
def test_a_json_ld_id_on_an_event_is_accepted(
    validator: DocumentValidator, event_type: str
) -> None:
    """`id` is the EPCIS context's alias of `@id`; real documents name their events with it."""
    event = {**MINIMAL_EVENTS[event_type], "id": "urn:uuid:6f0c1b52-0d5e-4c39-9d5a-1a2b3c4d5e6f"}

    assert validator.validate_capture(document(event)) == []


def test_a_json_ld_id_on_an_event_is_a_uri(validator: DocumentValidator) -> None:
    event = object_event(id="event one")

    assert problems(validator, document(event)) == [
        (f"{EVENT}.id", "'event one' does not match format 'uri'")
    ]


def test_each_unexpected_field_is_its_own_violation(validator: DocumentValidator) -> None:
    assert locations(validator, document(object_event(foo=1, bar=2))) == [
        f"{EVENT}.foo",
        f"{EVENT}.bar",
    ]


# Formats


@pytest.mark.parametrize(
    "time_value",
    [
        "2013-06-08T14:58:56.591Z",
        "2013-06-08T14:58:56+02:00",
        "2005-04-03T20:33:31.116000-06:00",
        "2005-07-11T11:30:47.0Z",
    ],
)
def test_an_iso_8601_date_time_with_an_offset_is_accepted(
    validator: DocumentValidator, time_value: str
) -> None:
    assert validator.validate_capture(document(object_event(eventTime=time_value))) == []


@pytest.mark.parametrize(
    "time_value",
    ["2013-06-08 14:58", "2013-06-08T14:58:56", "22-07-2026", "2013-02-30T10:00:00Z", "yesterday"],
)
def test_a_malformed_date_time_is_rejected(validator: DocumentValidator, time_value: str) -> None:
    assert problems(validator, document(object_event(eventTime=time_value))) == [
        (f"{EVENT}.eventTime", f"'{time_value}' does not match format 'date-time'")
    ]


@pytest.mark.parametrize(
    "identifier",
    [
        "urn:epc:id:sgtin:0614141.107346.2017",
        "urn:epc:idpat:sgtin:4012345.098765.*",
        "https://id.gs1.org/01/09521141012345/21/2017",
        "https://id.gs1.org/01/09521141012345/21/A%2FB?linkType=all",
        "example:foo",
        "ni:///sha-256;df7bb3c352fef055578554f09f5e2aa41782150ced7bd0b8af24dd3ccb30ba69?ver=CBV2.0",
        "_:b0",
    ],
)
def test_every_epcis_identifier_shape_is_a_uri(
    validator: DocumentValidator, identifier: str
) -> None:
    assert validator.validate_capture(document(object_event(epcList=[identifier]))) == []


@pytest.mark.parametrize(
    "identifier",
    ["not a uri", "0614141.107346.2017", "http://exa mple.com", "a:b#c#d", "urn:x\n", ":x"],
)
def test_a_value_that_is_not_a_uri_is_rejected_at_the_field(
    validator: DocumentValidator, identifier: str
) -> None:
    event = object_event(readPoint={"id": identifier})

    assert problems(validator, document(event)) == [
        (f"{EVENT}.readPoint.id", f"{identifier!r} does not match format 'uri'")
    ]


def test_a_scheme_with_nothing_after_it_is_a_uri_as_rfc_3986_and_gs1s_schema_have_it(
    validator: DocumentValidator,
) -> None:
    event = object_event(readPoint={"id": "urn:"})

    assert validator.validate_capture(document(event)) == []


def test_an_extension_field_may_be_named_by_any_uri_scheme_as_gs1s_schema_allows(
    validator: DocumentValidator,
) -> None:
    event = object_event(**{"svn+ssh:note": "x", "example:": "y"})

    assert validator.validate_capture(document(event)) == []


@pytest.mark.parametrize("offset", ["+00:00", "-06:00", "+14:00", "-13:59"])
def test_a_time_zone_offset_within_plus_minus_14_hours_is_accepted(
    validator: DocumentValidator, offset: str
) -> None:
    assert validator.validate_capture(document(object_event(eventTimeZoneOffset=offset))) == []


@pytest.mark.parametrize("offset", ["+14:30", "+2:00", "02:00", "Z", "+15:00"])
def test_a_malformed_time_zone_offset_is_rejected(
    validator: DocumentValidator, offset: str
) -> None:
    assert locations(validator, document(object_event(eventTimeZoneOffset=offset))) == [
        f"{EVENT}.eventTimeZoneOffset"
    ]


# Mandatory fields and actions


def test_an_unknown_action_is_rejected_naming_the_allowed_ones(
    validator: DocumentValidator,
) -> None:
    assert problems(validator, document(object_event(action="SHIPPING"))) == [
        (f"{EVENT}.action", "'SHIPPING' is not one of ['ADD', 'OBSERVE', 'DELETE']")
    ]


TEMPERATURE = [{"sensorReport": [{"type": "Temperature", "value": 21.5, "uom": "CEL"}]}]
WHAT_AN_OBJECT_EVENT_IS_ABOUT = (
    "An ObjectEvent needs an 'epcList' or a 'quantityList', or else sensor data about a "
    "place: a 'sensorElementList' with a 'readPoint'"
)


def test_an_object_event_with_sensor_data_about_a_place_needs_no_epc_list_or_quantity_list(
    validator: DocumentValidator,
) -> None:
    """The standard's sensor examples report readings at a read point, about no object."""
    event = object_event(epcList=None, readPoint={"id": SGLN}, sensorElementList=TEMPERATURE)

    assert validator.validate_capture(document(event)) == []


def test_an_object_event_about_no_object_and_no_place_is_rejected_as_gs1s_schema_rejects_it(
    validator: DocumentValidator,
) -> None:
    assert problems(validator, document(object_event(epcList=None))) == [
        (EVENT, WHAT_AN_OBJECT_EVENT_IS_ABOUT)
    ]


def test_sensor_data_without_a_read_point_does_not_make_up_for_a_missing_epc_list(
    validator: DocumentValidator,
) -> None:
    event = object_event(epcList=None, sensorElementList=TEMPERATURE)

    assert problems(validator, document(event)) == [(EVENT, WHAT_AN_OBJECT_EVENT_IS_ABOUT)]


def test_an_empty_sensor_element_list_does_not_make_up_for_a_missing_epc_list(
    validator: DocumentValidator,
) -> None:
    event = object_event(epcList=None, readPoint={"id": SGLN}, sensorElementList=[])

    assert problems(validator, document(event)) == [(EVENT, WHAT_AN_OBJECT_EVENT_IS_ABOUT)]


def test_an_object_event_with_an_empty_epc_list_is_accepted(validator: DocumentValidator) -> None:
    assert validator.validate_capture(document(object_event(epcList=[]))) == []


def test_an_object_event_carries_ilmd_only_when_adding(validator: DocumentValidator) -> None:
    event = object_event(action="OBSERVE", ilmd={"example:batch": "1"})

    assert problems(validator, document(event)) == [
        (
            f"{EVENT}.action",
            "An ObjectEvent may carry ilmd only when its action is 'ADD', not 'OBSERVE'",
        )
    ]


def test_a_transformation_event_has_no_action(validator: DocumentValidator) -> None:
    event = {**MINIMAL_EVENTS["TransformationEvent"], "action": "ADD"}

    assert locations(validator, document(event)) == [f"{EVENT}.action"]


def test_a_transformation_event_without_a_transformation_id_needs_an_input_as_gs1s_schema_has_it(
    validator: DocumentValidator,
) -> None:
    event = when("TransformationEvent", outputEPCList=[SGTIN])

    [(location, reason)] = problems(validator, document(event))
    assert location == EVENT
    assert "needs an input" in reason


def test_a_transaction_event_needs_a_biz_transaction_list(validator: DocumentValidator) -> None:
    event = when("TransactionEvent", action="ADD", epcList=[SGTIN])

    assert problems(validator, document(event)) == [
        (EVENT, "'bizTransactionList' is a required property")
    ]


def test_an_association_event_needs_a_parent(validator: DocumentValidator) -> None:
    event = when("AssociationEvent", action="ADD", childEPCs=[SGTIN])

    assert problems(validator, document(event)) == [(EVENT, "'parentID' is a required property")]


@pytest.mark.parametrize("action", ["ADD", "DELETE"])
def test_an_aggregation_event_that_adds_or_deletes_needs_a_parent_id_per_epcis_7_4_3(
    validator: DocumentValidator, action: str
) -> None:
    """The AggregationEvent's fields (EPCIS 2.0 §7.4.3): parentID is optional when the action
    is OBSERVE and required otherwise. GS1's schema does not check it; the standard does."""
    event = when("AggregationEvent", action=action, childEPCs=[SGTIN])

    assert problems(validator, document(event)) == [
        (EVENT, "An AggregationEvent with action ADD or DELETE needs a 'parentID'")
    ]


def test_an_aggregation_event_that_observes_needs_no_parent(validator: DocumentValidator) -> None:
    event = when("AggregationEvent", action="OBSERVE", childEPCs=[SGTIN])

    assert validator.validate_capture(document(event)) == []


def test_an_unknown_event_type_is_rejected_at_its_type(validator: DocumentValidator) -> None:
    [(location, reason)] = problems(validator, document(when("ShippingEvent")))

    assert location == f"{EVENT}.type"
    assert reason.startswith("'ShippingEvent' is neither one of ObjectEvent, AggregationEvent")
    assert reason.endswith("nor a URI naming an extension event type")


def test_an_event_of_a_type_named_by_a_uri_is_accepted(validator: DocumentValidator) -> None:
    """GS1's schema takes an event of any type named by a URI (its Extended-Event), and the
    standard has no SHALL against it."""
    event = {
        "type": "https://example.com/epcis/InspectionEvent",
        "eventTime": "2024-03-01T10:00:00Z",
        "eventTimeZoneOffset": "+00:00",
        "inspector": "anyone",
    }

    assert validator.validate_capture(document(event)) == []


def test_an_extension_event_needs_the_fields_every_event_has(validator: DocumentValidator) -> None:
    event = {"type": "https://example.com/epcis/InspectionEvent", "eventTime": "yesterday"}

    assert sorted(problems(validator, document(event))) == [
        (EVENT, "'eventTimeZoneOffset' is a required property"),
        (f"{EVENT}.eventTime", "'yesterday' does not match format 'date-time'"),
    ]


def test_an_event_without_a_type_is_rejected(validator: DocumentValidator) -> None:
    event = object_event()
    del event["type"]

    assert problems(validator, document(event)) == [(EVENT, "'type' is a required property")]


# Quantities


def test_a_quantity_given_as_text_is_rejected(validator: DocumentValidator) -> None:
    quantities = [{"epcClass": "urn:epc:class:lgtin:4012345.011111.A1", "quantity": "20"}]

    assert problems(validator, document(object_event(quantityList=quantities))) == [
        (f"{EVENT}.quantityList.0.quantity", "'20' is not of type 'number'")
    ]


def test_an_unknown_field_in_a_quantity_element_is_rejected(validator: DocumentValidator) -> None:
    quantities = [{"epcClass": "urn:epc:class:lgtin:4012345.011111.A1", "example:weight": 5}]

    assert problems(validator, document(object_event(quantityList=quantities))) == [
        (
            f"{EVENT}.quantityList.0.example:weight",
            "'example:weight' is not a field of a quantity element",
        )
    ]


def test_a_unit_of_measure_without_a_quantity_is_accepted_as_gs1s_schema_accepts_it(
    validator: DocumentValidator,
) -> None:
    quantities = [{"epcClass": "urn:epc:class:lgtin:4012345.011111.A1", "uom": "KGM"}]

    assert validator.validate_capture(document(object_event(quantityList=quantities))) == []


def test_a_unit_of_measure_is_a_rec_20_code(validator: DocumentValidator) -> None:
    quantities = [{"epcClass": "urn:epc:class:lgtin:4012345.011111.A1", "quantity": 1, "uom": "kg"}]

    assert locations(validator, document(object_event(quantityList=quantities))) == [
        f"{EVENT}.quantityList.0.uom"
    ]


# CBV vocabularies: a standard bare word or an absolute URI


class Vocabulary(NamedTuple):
    field: str
    fields: Callable[[str], dict[str, Any]]
    standard: str
    where: str
    named: str


VOCABULARIES = [
    Vocabulary("bizStep", lambda value: {"bizStep": value}, "shipping", "bizStep", "bizStep"),
    Vocabulary(
        "disposition",
        lambda value: {"disposition": value},
        "in_transit",
        "disposition",
        "disposition",
    ),
    Vocabulary(
        "bizTransaction type",
        lambda value: {
            "bizTransactionList": [{"type": value, "bizTransaction": "urn:example:bt:1"}]
        },
        "po",
        "bizTransactionList.0.type",
        "bizTransaction type",
    ),
    Vocabulary(
        "source type",
        lambda value: {"sourceList": [{"type": value, "source": SGLN}]},
        "owning_party",
        "sourceList.0.type",
        "source/destination type",
    ),
    Vocabulary(
        "destination type",
        lambda value: {"destinationList": [{"type": value, "destination": SGLN}]},
        "location",
        "destinationList.0.type",
        "source/destination type",
    ),
    Vocabulary(
        "error reason",
        lambda value: {
            "errorDeclaration": {"declarationTime": "2024-03-02T10:00:00Z", "reason": value}
        },
        "incorrect_data",
        "errorDeclaration.reason",
        "error reason",
    ),
    Vocabulary(
        "persistentDisposition set",
        lambda value: {"persistentDisposition": {"set": [value]}},
        "completeness_verified",
        "persistentDisposition.set.0",
        "disposition",
    ),
    Vocabulary(
        "persistentDisposition unset",
        lambda value: {"persistentDisposition": {"unset": [value]}},
        "completeness_inferred",
        "persistentDisposition.unset.0",
        "disposition",
    ),
    Vocabulary(
        "sensor type",
        lambda value: {"sensorElementList": [{"sensorReport": [{"type": value, "value": 1}]}]},
        "Temperature",
        "sensorElementList.0.sensorReport.0.type",
        "sensor measurement type",
    ),
]
by_field = pytest.mark.parametrize("vocabulary", VOCABULARIES, ids=lambda v: v.field)


@by_field
def test_a_standard_bare_word_is_accepted(
    validator: DocumentValidator, vocabulary: Vocabulary
) -> None:
    event = object_event(**vocabulary.fields(vocabulary.standard))

    assert validator.validate_capture(document(event)) == []


@by_field
@pytest.mark.parametrize(
    "uri",
    [
        "urn:epcglobal:cbv:bizstep:shipping",
        "https://ref.gs1.org/cbv/BizStep-shipping",
        "https://example.com/vocabulary/special",
        "example:special",
    ],
)
def test_an_absolute_uri_is_accepted(
    validator: DocumentValidator, vocabulary: Vocabulary, uri: str
) -> None:
    assert validator.validate_capture(document(object_event(**vocabulary.fields(uri)))) == []


@by_field
def test_a_bare_word_that_is_not_standard_is_rejected(
    validator: DocumentValidator, vocabulary: Vocabulary
) -> None:
    event = object_event(**vocabulary.fields("SHIPPING"))

    [(location, reason)] = problems(validator, document(event))

    assert location == f"{EVENT}.{vocabulary.where}"
    assert reason.startswith(f"Non-standard {vocabulary.named} 'SHIPPING': use a ")


def test_a_persistent_disposition_is_an_object_with_set_or_unset(
    validator: DocumentValidator,
) -> None:
    assert problems(validator, document(object_event(persistentDisposition={}))) == [
        (f"{EVENT}.persistentDisposition", "A persistentDisposition needs 'set' or 'unset'")
    ]


def test_a_persistent_disposition_given_as_a_list_is_rejected(
    validator: DocumentValidator,
) -> None:
    event = object_event(persistentDisposition=["completeness_verified"])

    assert problems(validator, document(event)) == [
        (f"{EVENT}.persistentDisposition", "['completeness_verified'] is not of type 'object'")
    ]


def test_a_persistent_disposition_has_its_structure_on_every_event_type(
    validator: DocumentValidator,
) -> None:
    """GS1's schema checks the structure on ObjectEvent and TransformationEvent and lets any
    value through on the other three; the standard defines one persistentDisposition."""
    event = {**MINIMAL_EVENTS["AggregationEvent"], "persistentDisposition": "completeness_verified"}

    assert locations(validator, document(event)) == [f"{EVENT}.persistentDisposition"]


def test_persistent_disposition_values_are_lists(validator: DocumentValidator) -> None:
    event = object_event(persistentDisposition={"set": "completeness_verified"})

    assert locations(validator, document(event)) == [f"{EVENT}.persistentDisposition.set"]


# Sensor data


def test_a_gs1_curie_measurement_type_is_accepted(validator: DocumentValidator) -> None:
    report = {"type": "gs1:Temperature", "value": 26.5, "uom": "CEL", "component": "latitude"}

    event = object_event(sensorElementList=[{"sensorReport": [report]}])

    assert validator.validate_capture(document(event)) == []


@pytest.mark.parametrize("unit", ["CEL", "Cel", "°C", "mg/L"])
def test_a_sensor_reports_unit_is_any_text_as_gs1s_schema_allows(
    validator: DocumentValidator, unit: str
) -> None:
    """GS1's schema checks a quantity's uom against UN/ECE Rec. 20, a sensorReport's it does not."""
    element = {"sensorReport": [{"type": "Temperature", "value": 4.5, "uom": unit}]}

    assert validator.validate_capture(document(object_event(sensorElementList=[element]))) == []


@pytest.mark.parametrize("hex_value", ["", "0AFF", "abc"])
def test_a_hex_binary_value_is_hex_digits_of_any_count_as_gs1s_schema_allows(
    validator: DocumentValidator, hex_value: str
) -> None:
    element = {"sensorReport": [{"type": "Temperature", "hexBinaryValue": hex_value}]}

    assert validator.validate_capture(document(object_event(sensorElementList=[element]))) == []


def test_a_hex_binary_value_is_hex_digits_only(validator: DocumentValidator) -> None:
    element = {"sensorReport": [{"type": "Temperature", "hexBinaryValue": "0x1F"}]}

    assert problems(validator, document(object_event(sensorElementList=[element]))) == [
        (
            f"{EVENT}.sensorElementList.0.sensorReport.0.hexBinaryValue",
            "'0x1F' is not hexadecimal binary (hex digits only)",
        )
    ]


def test_a_sensor_element_needs_at_least_one_report(validator: DocumentValidator) -> None:
    event = object_event(sensorElementList=[{"sensorReport": []}])

    assert locations(validator, document(event)) == [f"{EVENT}.sensorElementList.0.sensorReport"]


def test_biz_rules_on_a_sensor_report_are_accepted_as_gs1s_schema_accepts_them(
    validator: DocumentValidator,
) -> None:
    """GS1's schema lists bizRules among a sensorReport's fields, and real documents use it."""
    element = {
        "sensorMetadata": {"bizRules": "https://example.com/rules/1"},
        "sensorReport": [{"type": "Temperature", "bizRules": "https://example.com/rules/2"}],
    }

    assert validator.validate_capture(document(object_event(sensorElementList=[element]))) == []


def test_biz_rules_on_a_sensor_report_are_a_uri(validator: DocumentValidator) -> None:
    element = {"sensorReport": [{"type": "Temperature", "bizRules": "rule one"}]}

    assert locations(validator, document(object_event(sensorElementList=[element]))) == [
        f"{EVENT}.sensorElementList.0.sensorReport.0.bizRules"
    ]


def test_a_sensor_exception_is_a_standard_alert_type(validator: DocumentValidator) -> None:
    element = {"sensorReport": [{"exception": "ALARM_CONDITION"}, {"exception": "ALARM"}]}

    assert locations(validator, document(object_event(sensorElementList=[element]))) == [
        f"{EVENT}.sensorElementList.0.sensorReport.1.exception"
    ]


# Certification info


@pytest.mark.parametrize(
    "certification",
    ["https://cert.example.org/ABC", ["https://cert.example.org/A", "https://cert.example.org/B"]],
)
def test_certification_info_is_a_uri_or_a_list_of_uris(
    validator: DocumentValidator, certification: Any
) -> None:
    assert validator.validate_capture(document(object_event(certificationInfo=certification))) == []


# Violations: one per problem, deepest location, document order


def test_violations_follow_document_order(validator: DocumentValidator) -> None:
    first = object_event(action="SHIPPING", foo=1)
    second = object_event(eventTime="soon", epcList=None)
    doc = document(first, second)

    assert locations(validator, doc) == [
        f"{EVENT}.action",
        f"{EVENT}.foo",
        "epcisBody.eventList.1",
        "epcisBody.eventList.1.eventTime",
    ]


def test_a_problem_is_reported_once(validator: DocumentValidator) -> None:
    event = object_event(bizStep=5)

    assert problems(validator, document(event)) == [
        (f"{EVENT}.bizStep", "5 is not of type 'string'")
    ]


def test_a_long_value_is_shortened_in_the_reason(validator: DocumentValidator) -> None:
    [(_, reason)] = problems(validator, document(object_event(eventTime="x" * 500)))

    assert reason == "'" + "x" * 76 + "... does not match format 'date-time'"


def test_violations_are_violation_values(validator: DocumentValidator) -> None:
    [violation] = validator.validate_capture(document(object_event(action="SHIPPING")))

    assert isinstance(violation, Violation)
    assert str(violation) == (
        f"{EVENT}.action: 'SHIPPING' is not one of ['ADD', 'OBSERVE', 'DELETE']"
    )


def test_validation_leaves_the_document_untouched(validator: DocumentValidator) -> None:
    doc = document(object_event(), object_event(action="SHIPPING"))
    before = copy.deepcopy(doc)

    validator.validate_capture(doc)

    assert doc == before


# Query documents


def test_a_query_document_with_events_is_valid(validator: DocumentValidator) -> None:
    assert validator.validate_query_document(query_document(object_event())) == []


def test_a_query_document_may_hold_no_events(validator: DocumentValidator) -> None:
    assert validator.validate_query_document(query_document()) == []


def test_a_query_document_needs_a_query_name(validator: DocumentValidator) -> None:
    doc = query_document(object_event())
    del doc["epcisBody"]["queryResults"]["queryName"]

    assert [v.location for v in validator.validate_query_document(doc)] == [
        "epcisBody.queryResults"
    ]


def test_a_capture_document_is_not_a_query_document(validator: DocumentValidator) -> None:
    violations = validator.validate_query_document(document(object_event()))

    assert ("type", "'EPCISDocument' is not one of ['EPCISQueryDocument']") in [
        (v.location, v.reason) for v in violations
    ]


# Large documents (how fast they validate: bench/validation.py, part of `make bench`)


def ten_thousand_events() -> dict[str, Any]:
    events = [
        object_event(
            epcList=[f"urn:epc:id:sgtin:4012345.011111.{serial}"],
            bizStep="shipping",
            disposition="in_transit",
            readPoint={"id": SGLN},
            bizTransactionList=[{"type": "po", "bizTransaction": "urn:epcglobal:cbv:bt:1:2"}],
        )
        for serial in range(10_000)
    ]
    return document(*events)


def test_a_ten_thousand_event_document_is_valid(validator: DocumentValidator) -> None:
    assert validator.validate_capture(ten_thousand_events()) == []


def test_a_ten_thousand_event_document_is_explained_down_to_its_last_event(
    validator: DocumentValidator,
) -> None:
    doc = ten_thousand_events()
    del doc["@context"]
    doc["epcisBody"]["eventList"][9_999]["action"] = "SHIPPING"

    violations = validator.validate_capture(doc)

    assert [v.location for v in violations] == ["(root)", "epcisBody.eventList.9999.action"]
