"""The export file of a code reservation, read back as CSV, JSON and XML."""

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from domain.codes.exports import (
    EXPORT_TYPES,
    ExportedCode,
    export_codes,
    extension,
    media_type,
)

RESERVATION = "5f0c6a2e-1d7b-4b8e-9a51-0f3c2b7d9e10"
CODES = [
    ExportedCode(
        code="AB12CD34",
        digital_link="https://id.example.com/01/09506000134352/21/AB12CD34",
        type="sgtin",
        gtin="09506000134352",
        status="reserved",
        id="6a7e1c52-0b9d-4f3e-8c21-7d5b4a3e2f10",
    ),
    ExportedCode(
        code="106141411234567897",
        digital_link="https://id.example.com/00/106141411234567897",
        type="sscc",
        gtin=None,
        status="assigned",
        id="7b8f2d63-1cae-4a4f-9d32-8e6c5b4f3a21",
    ),
]
# Every character the formats must escape, in every field that carries text.
TRICKY = ExportedCode(
    code='a&b<c>"d",e\'f',
    digital_link='https://id.example.com/x?a=1&b="2",<3>',
    type="short_code",
    gtin='0950&<,"',
    status='re"served,&<',
    id='id,"&<>',
)


def _rows(codes: list[ExportedCode], suffix: str | None) -> list[dict[str, str | None]]:
    return [
        {
            "id": c.id,
            "type": c.type,
            "code": c.code,
            "gtin": c.gtin,
            "digital_link": c.digital_link + (suffix or ""),
            "status": c.status,
        }
        for c in codes
    ]


def _from_csv(data: bytes) -> list[dict[str, str | None]]:
    reader = csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""))
    assert reader.fieldnames == ["id", "type", "code", "gtin", "digital_link", "status"]
    # CSV has no null: an empty GTIN is none.
    return [{**row, "gtin": row["gtin"] or None} for row in reader]


def _from_xml(data: bytes) -> tuple[dict[str, str], list[dict[str, str | None]]]:
    root = ET.fromstring(data)
    assert root.tag == "codes"
    rows: list[dict[str, str | None]] = [
        {
            "id": element.get("id"),
            "type": element.get("type"),
            "code": element.findtext("value"),
            "gtin": element.findtext("gtin"),
            "digital_link": element.findtext("digitalLink"),
            "status": element.get("status"),
        }
        for element in root
    ]
    return dict(root.attrib), rows


@pytest.mark.parametrize("suffix", ["?s=1", "/x", None])
def test_csv_reads_back_with_the_suffix(suffix: str | None) -> None:
    data = export_codes("csv", RESERVATION, CODES, suffix)
    assert _from_csv(data) == _rows(CODES, suffix)


def test_csv_rows_end_with_crlf() -> None:
    data = export_codes("csv", RESERVATION, CODES, None)
    assert data.startswith(b"id,type,code,gtin,digital_link,status\r\n")
    assert data.count(b"\r\n") == 3


@pytest.mark.parametrize("suffix", ["?s=1", "/x", None])
def test_json_reads_back_with_the_suffix(suffix: str | None) -> None:
    data = export_codes("json", RESERVATION, CODES, suffix)
    assert json.loads(data) == {
        "reservation": RESERVATION,
        "count": 2,
        "codes": _rows(CODES, suffix),
    }


@pytest.mark.parametrize("suffix", ["?s=1", "/x", None])
def test_xml_reads_back_with_the_suffix(suffix: str | None) -> None:
    data = export_codes("xml", RESERVATION, CODES, suffix)
    attributes, rows = _from_xml(data)
    assert attributes == {"reservation": RESERVATION, "count": "2"}
    assert rows == _rows(CODES, suffix)


def test_xml_opens_with_a_utf8_declaration() -> None:
    data = export_codes("xml", RESERVATION, CODES, None)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')


def test_xml_leaves_out_a_missing_gtin() -> None:
    root = ET.fromstring(export_codes("xml", RESERVATION, CODES, None))
    assert [element.find("gtin") is None for element in root] == [False, True]


def test_special_characters_survive_csv() -> None:
    data = export_codes("csv", RESERVATION, [TRICKY], '&"<,')
    assert _from_csv(data) == _rows([TRICKY], '&"<,')


def test_special_characters_survive_json() -> None:
    data = export_codes("json", 'r&"<,', [TRICKY], '&"<,')
    assert json.loads(data)["codes"] == _rows([TRICKY], '&"<,')
    assert json.loads(data)["reservation"] == 'r&"<,'


def test_special_characters_survive_xml() -> None:
    attributes, rows = _from_xml(export_codes("xml", 'r&"<,', [TRICKY], '&"<,'))
    assert attributes["reservation"] == 'r&"<,'
    assert rows == _rows([TRICKY], '&"<,')


@pytest.mark.parametrize("export_type", EXPORT_TYPES)
def test_non_ascii_text_is_utf8(export_type: str) -> None:
    code = ExportedCode("Éß漢", "https://id.example.com/Éß漢", "short_code", None, "reserved", "1")
    data = export_codes(export_type, RESERVATION, [code], None)
    assert "Éß漢".encode() in data


def test_no_codes_gives_an_empty_csv() -> None:
    assert export_codes("csv", RESERVATION, [], None) == (
        b"id,type,code,gtin,digital_link,status\r\n"
    )


def test_no_codes_gives_an_empty_json_list() -> None:
    data = export_codes("json", RESERVATION, [], None)
    assert json.loads(data) == {"reservation": RESERVATION, "count": 0, "codes": []}


def test_no_codes_gives_an_empty_xml_root() -> None:
    attributes, rows = _from_xml(export_codes("xml", RESERVATION, [], None))
    assert (attributes["count"], rows) == ("0", [])


def test_unknown_export_type_raises_naming_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="csv, json, xml"):
        export_codes("xlsx", RESERVATION, CODES, None)


@pytest.mark.parametrize(
    ("export_type", "expected"),
    [("csv", "text/csv"), ("json", "application/json"), ("xml", "application/xml")],
)
def test_media_type(export_type: str, expected: str) -> None:
    assert media_type(export_type) == expected


@pytest.mark.parametrize(("export_type", "expected"), [("csv", ".csv"), ("json", ".json")])
def test_extension_includes_the_dot(export_type: str, expected: str) -> None:
    assert extension(export_type) == expected


@pytest.mark.parametrize("lookup", [media_type, extension])
def test_unknown_type_has_no_media_type_or_extension(lookup: Callable[[str], str]) -> None:
    with pytest.raises(ValueError, match="csv, json, xml"):
        lookup("CSV")
