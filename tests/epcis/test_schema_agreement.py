"""jsonschema-rs decides validity in production; the `jsonschema` library must agree with it."""

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from infrastructure.epcis_schema import DocumentKind, document_schema, load_schema
from tests.epcis.jsonschema_reference import is_rfc3339_date_time, reference_validator

CORPUS = Path(__file__).parents[1] / "fixtures" / "openepcis"
CAPTURE_FIXTURES = sorted((CORPUS / "Capture").glob("*/*.json"))
QUERY_FIXTURES = sorted((CORPUS / "Query").glob("**/*.json"))


def rust_validator(kind: DocumentKind) -> Any:
    return jsonschema_rs.Draft7Validator(document_schema(kind), validate_formats=True)


def error_locations_by_python(validator: Any, document: Any) -> list[tuple[str, str]]:
    return sorted(
        (".".join(map(str, error.absolute_path)), error.validator)
        for error in validator.iter_errors(document)
    )


def error_locations_by_rust(validator: Any, document: Any) -> list[tuple[str, str]]:
    return sorted(
        (".".join(map(str, error.instance_path)), error.kind.name)
        for error in validator.iter_errors(document)
    )


@pytest.mark.parametrize(
    ("kind", "path"),
    [("captureDocument", path) for path in CAPTURE_FIXTURES]
    + [("EPCISQueryDocument", path) for path in QUERY_FIXTURES],
    ids=lambda value: value.name if isinstance(value, Path) else value,
)
def test_both_libraries_agree_on_every_fixture(kind: DocumentKind, path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    python, rust = reference_validator(kind), rust_validator(kind)

    assert python.is_valid(document) == rust.is_valid(document)
    assert error_locations_by_python(python, document) == error_locations_by_rust(rust, document)


@pytest.mark.parametrize(
    "value",
    [
        "2013-06-08T14:58:56.591Z",
        "2013-06-08T14:58:56+02:00",
        "2013-06-08t14:58:56z",
        "2016-12-31T23:59:60Z",
        "2016-12-31T21:59:60-02:00",
        "2016-12-31T23:59:60+02:00",
        "2013-06-08T14:58:60Z",
        "2024-02-29T00:00:00Z",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00Z",
        "2013-06-08T24:00:00Z",
        "2013-06-08T14:58:56+23:59",
        "2013-06-08T14:58:56+24:00",
        "2013-06-08T14:58:56",
        "2013-06-08 14:58",
        "2013-06-08T14:58:56.Z",
        "22-07-2026",
    ],
)
def test_both_libraries_agree_on_date_times(value: str) -> None:
    rust = jsonschema_rs.Draft7Validator({"format": "date-time"}, validate_formats=True)

    assert is_rfc3339_date_time(value) == rust.is_valid(value)


@pytest.mark.parametrize(
    "value",
    [
        "urn:epc:id:sgtin:0614141.107346.2017",
        "https://id.gs1.org/01/09521141012345/21/2017?17=241231#top",
        "http://[2001:db8::1]/path",
        "example:foo",
        "_:document1",
        "a:%41%zz",
        "urn:",
        "1urn:x",
        "http://example.com/a b",
        "https://example.com/café",
        "https://example.com/#a#b",
    ],
)
def test_python_and_rust_regular_expressions_agree_on_uris(value: str) -> None:
    """They differ on one thing only: Python's `$` also matches before a final newline."""
    pattern = load_schema()["definitions"]["uri"]["pattern"]
    rust = jsonschema_rs.Draft7Validator({"pattern": pattern})

    assert (re.search(pattern, value) is not None) == rust.is_valid(value)
