"""The OpenEPCIS conformance corpus (Apache-2.0, copied under tests/fixtures/openepcis).

Every capture sample is accepted except two that break the EPCIS 2.0 standard itself; every
invalid sample is rejected with violations pointing at the broken fields.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from domain.epcis.violations import Violation
from infrastructure.epcis_schema import DocumentValidator

CORPUS = Path(__file__).parents[1] / "fixtures" / "openepcis"
VALID_SAMPLES = sorted((CORPUS / "Capture" / "Documents").glob("*.json"))
INVALID_SAMPLES = sorted((CORPUS / "Capture" / "Invalid").glob("*.json"))
QUERY_DOCUMENTS = sorted((CORPUS / "Query").glob("*.json"))
INVALID_QUERY_DOCUMENTS = sorted((CORPUS / "Query" / "Invalid").glob("*.json"))

NONCONFORMING_SAMPLES = {
    "SensorData_with_combined_events.json",
    "TransactionEvent_with_userExtensions.json",
}
EVENT = "epcisBody.eventList"
QUERY_EVENT = "epcisBody.queryResults.resultsBody.eventList"


@pytest.fixture(scope="module")
def validator() -> DocumentValidator:
    return DocumentValidator()


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def sample(name: str) -> Any:
    return load(CORPUS / "Capture" / "Documents" / name)


def at(violations: list[Violation]) -> list[str]:
    return [violation.location for violation in violations]


def test_the_corpus_is_there_with_its_licence() -> None:
    assert len(VALID_SAMPLES) == 38
    assert len(INVALID_SAMPLES) == 15
    assert "Apache License" in (CORPUS / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "path",
    [path for path in VALID_SAMPLES if path.name not in NONCONFORMING_SAMPLES],
    ids=lambda path: path.name,
)
def test_a_conforming_capture_sample_is_accepted(validator: DocumentValidator, path: Path) -> None:
    assert validator.validate_capture(load(path)) == []


def test_only_the_two_nonconforming_samples_are_rejected(validator: DocumentValidator) -> None:
    rejected = {path.name for path in VALID_SAMPLES if validator.validate_capture(load(path))}
    assert rejected == NONCONFORMING_SAMPLES


def test_sample_SensorData_with_combined_events_is_rejected_because_Molar_concentration_and_EffectiveDoseRate_are_not_standard_measurement_types(  # noqa: E501
    validator: DocumentValidator,
) -> None:
    """A sensorReport `type` is a gs1:MeasurementType or a URI (EPCIS 2.0, sensor data).

    The EPCIS 2.0 JSON-LD context types `sensorReport.type` as `@vocab` and defines exactly the
    72 GS1 Web Vocabulary measurement types as bare terms (Temperature, AbsoluteHumidity,
    AmountOfSubstancePerUnitVolume, DoseEquivalentRate, ...). 'Molar_concentration' and
    'EffectiveDoseRate' are neither such a term nor URIs: the mol-per-volume reading is
    'AmountOfSubstancePerUnitVolume' (which the matching AggregationEvent_with_sensorData sample
    uses), and GS1 has no 'EffectiveDoseRate'. (Its `bizRules` inside a sensorReport is fine:
    GS1's schema lists it among a sensorReport's fields.)
    """
    violations = validator.validate_capture(sample("SensorData_with_combined_events.json"))

    sensor = f"{EVENT}.{{}}.sensorElementList.{{}}.sensorReport.{{}}"
    expected = [
        (sensor.format(7, 0, 1) + ".type", "sensor measurement type 'Molar_concentration'"),
        (sensor.format(7, 0, 2) + ".type", "sensor measurement type 'Molar_concentration'"),
        (sensor.format(10, 0, 0) + ".type", "sensor measurement type 'EffectiveDoseRate'"),
    ]
    assert at(violations) == [location for location, _ in expected]
    for violation, (_, fragment) in zip(violations, expected, strict=True):
        assert fragment in violation.reason


def test_sample_TransactionEvent_with_userExtensions_is_rejected_because_sensor_type_EffectiveDoseRate_is_not_a_standard_measurement_type(  # noqa: E501
    validator: DocumentValidator,
) -> None:
    """'EffectiveDoseRate' is not in gs1:MeasurementType and is not a URI.

    The GS1 Web Vocabulary's radiation measurement types are AbsorbedDose, AbsorbedDoseRate,
    DoseEquivalent, DoseEquivalentRate, Exposure and Radioactivity; a private measurement type
    must be a URI (e.g. 'example:EffectiveDoseRate' with the prefix the sample already declares).
    """
    violations = validator.validate_capture(sample("TransactionEvent_with_userExtensions.json"))

    assert at(violations) == [f"{EVENT}.0.sensorElementList.0.sensorReport.0.type"]
    assert "Non-standard sensor measurement type 'EffectiveDoseRate'" in violations[0].reason


def test_sample_AggregationEvent_with_sensorData_is_accepted_with_bizRules_on_a_sensorReport(
    validator: DocumentValidator,
) -> None:
    """GS1's EPCIS 2.0 JSON Schema lists `bizRules` among a sensorReport's fields, and no
    SHALL of the standard forbids it there (it was refused until issue 15)."""
    assert validator.validate_capture(sample("AggregationEvent_with_sensorData.json")) == []


def test_every_persistentDisposition_sample_is_accepted(validator: DocumentValidator) -> None:
    """No sample breaks the persistentDisposition shape: each is an object whose `set` and
    `unset` are lists of CBV 2.0 dispositions (completeness_verified, completeness_inferred)."""
    with_persistent_disposition = [
        path for path in VALID_SAMPLES if "persistentDisposition" in path.read_text("utf-8")
    ]

    assert len(with_persistent_disposition) == 5
    assert all(validator.validate_capture(load(path)) == [] for path in with_persistent_disposition)


EXPECTED_REJECTIONS: dict[str, list[tuple[str, str]]] = {
    "Combination_of_events_with_missing_mandatory_fields.json": [
        (f"{EVENT}.0", "'action' is a required property"),
        (f"{EVENT}.1", "'eventTimeZoneOffset' is a required property"),
        (f"{EVENT}.1", "'action' is a required property"),
    ],
    "Combination_of_multiple_invalid_fields.json": [
        (f"{EVENT}.0.bizStep", "Non-standard bizStep 'transforming'"),
        (f"{EVENT}.1.disposition", "Non-standard disposition 'in_transport'"),
        (f"{EVENT}.2.sourceList.0.type", "Non-standard source/destination type 'place'"),
        (f"{EVENT}.3.ilmd.materialType", "need a namespace prefix"),
        (f"{EVENT}.4.eventTime", "'22-07-2026' does not match format 'date-time'"),
        (f"{EVENT}.4.action", "'CREATE' is not one of ['ADD', 'OBSERVE', 'DELETE']"),
    ],
    "Combination_of_non_standard_bizStep_and_disposition.json": [
        (f"{EVENT}.0.bizStep", "Non-standard bizStep 'transforming'"),
        (f"{EVENT}.1.disposition", "Non-standard disposition 'in_transport'"),
    ],
    "EPCISDocument_without_context.json": [("(root)", "'@context' is a required property")],
    "ObjectEvent_with_ilmd_field_without_namespace.json": [
        (f"{EVENT}.0.ilmd.materialType", "'materialType' is not a field of ilmd"),
    ],
    "ObjectEvent_with_invalid_action.json": [
        (f"{EVENT}.0.action", "'CREATE' is not one of ['ADD', 'OBSERVE', 'DELETE']"),
    ],
    # certificationInfo is a URI or a list of URIs; both entries here are objects, the second
    # one with the malformed audit date the sample is about.
    "ObjectEvent_with_invalid_certificationInfo.json": [
        (f"{EVENT}.0.certificationInfo.0", "is not of type 'string'"),
        (f"{EVENT}.0.certificationInfo.1", "is not of type 'string'"),
    ],
    "ObjectEvent_with_invalid_eventTime_format.json": [
        (f"{EVENT}.0.eventTime", "'22-07-2026' does not match format 'date-time'"),
    ],
    "ObjectEvent_with_non_standard_bizStep.json": [
        (f"{EVENT}.0.bizStep", "Non-standard bizStep 'transforming'"),
    ],
    "ObjectEvent_with_non_standard_bizStep_in_second_event.json": [
        (f"{EVENT}.1.bizStep", "Non-standard bizStep 'transforming'"),
    ],
    "ObjectEvent_with_non_standard_disposition.json": [
        (f"{EVENT}.0.disposition", "Non-standard disposition 'in_transport'"),
    ],
    "ObjectEvent_with_quantity_as_text.json": [
        (f"{EVENT}.0.quantityList.0.quantity", "'twenty' is not of type 'number'"),
    ],
    "ObjectEvent_with_unknown_field_in_quantityList.json": [
        (f"{EVENT}.0.quantityList.0.weight", "'weight' is not a field of a quantity element"),
    ],
    "ObjectEvent_without_action_and_eventTime.json": [
        (f"{EVENT}.0", "'eventTime' is a required property"),
        (f"{EVENT}.0", "'eventTimeZoneOffset' is a required property"),
        (f"{EVENT}.0", "'action' is a required property"),
    ],
    # No EPCs, no quantities, and no sensor data about a place either: GS1's schema too
    # rejects an ObjectEvent that is about nothing.
    "ObjectEvent_without_identifier_list.json": [
        (f"{EVENT}.0", "An ObjectEvent needs an 'epcList' or a 'quantityList', or else sensor"),
    ],
}


def test_every_invalid_sample_has_expectations() -> None:
    assert sorted(EXPECTED_REJECTIONS) == [path.name for path in INVALID_SAMPLES]


@pytest.mark.parametrize("name", sorted(EXPECTED_REJECTIONS))
def test_an_invalid_capture_sample_is_rejected_at_each_broken_field(
    validator: DocumentValidator, name: str
) -> None:
    violations = validator.validate_capture(load(CORPUS / "Capture" / "Invalid" / name))

    expected = EXPECTED_REJECTIONS[name]
    assert at(violations) == [location for location, _ in expected]
    for violation, (_, fragment) in zip(violations, expected, strict=True):
        assert fragment in violation.reason


@pytest.mark.parametrize(
    "path",
    [path for path in QUERY_DOCUMENTS if path.name not in NONCONFORMING_SAMPLES],
    ids=lambda path: path.name,
)
def test_a_conforming_query_document_sample_is_accepted(
    validator: DocumentValidator, path: Path
) -> None:
    assert validator.validate_query_document(load(path)) == []


def test_query_document_samples_with_nonstandard_sensor_types_are_rejected(
    validator: DocumentValidator,
) -> None:
    """The query-document twins of two nonconforming capture samples break the same rule."""
    for name in (
        "SensorData_with_combined_events.json",
        "TransactionEvent_with_userExtensions.json",
    ):
        violations = validator.validate_query_document(load(CORPUS / "Query" / name))
        assert violations
        assert all(v.location.startswith(QUERY_EVENT) for v in violations)


@pytest.mark.parametrize(
    ("name", "location", "fragment"),
    [
        (
            "QueryDocument_with_invalid_action.json",
            f"{QUERY_EVENT}.0.action",
            "'INVALIDACTION' is not one of ['ADD', 'OBSERVE', 'DELETE']",
        ),
        (
            "QueryDocument_with_invalid_eventType.json",
            f"{QUERY_EVENT}.0.type",
            "'ObjectEventInvalid' is neither one of ObjectEvent, ",
        ),
    ],
)
def test_an_invalid_query_document_sample_is_rejected_at_the_broken_field(
    validator: DocumentValidator, name: str, location: str, fragment: str
) -> None:
    violations = validator.validate_query_document(load(CORPUS / "Query" / "Invalid" / name))

    assert at(violations) == [location]
    assert fragment in violations[0].reason


def test_the_invalid_query_document_samples_are_all_covered() -> None:
    assert len(INVALID_QUERY_DOCUMENTS) == 2
