"""The export formats, written from data alone: what each does with related items,
lists, nulls and values XML cannot name or hold."""

import csv
import io
from datetime import UTC, datetime

import orjson
import yaml
from lxml import etree

from api.items.exports import export_body, export_response

ITEMS = [
    {"id": 1, "name": "Oats", "active": True, "maker": {"id": "a", "name": "Acme"}, "tags": [3, 4]},
    {"id": 2, "name": None, "active": False, "maker": None, "tags": [], "extra": "x"},
]


def test_the_file_is_named_after_the_collection_and_the_time() -> None:
    response = export_response("product", "yaml", [], datetime(2026, 3, 1, 9, 5, 7, tzinfo=UTC))
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="product 20260301-090507.yaml"'
    )
    assert response.headers["Content-Type"] == "text/yaml"


def test_csv_has_every_column_and_spreads_related_items_into_dotted_columns() -> None:
    rows = list(csv.reader(io.StringIO(export_body("csv", ITEMS).decode())))
    assert rows == [
        ["id", "name", "active", "maker.id", "maker.name", "tags", "extra"],
        ["1", "Oats", "true", "a", "Acme", "[3, 4]", ""],
        ["2", "", "false", "", "", "[]", "x"],
    ]


def test_csv_utf8_starts_with_a_byte_order_mark() -> None:
    body = export_body("csv_utf8", [{"name": "Café"}])
    assert body.startswith(b"\xef\xbb\xbf")
    assert body.decode("utf-8-sig").splitlines() == ["name", "Café"]


def test_json_and_yaml_hold_the_data_as_it_is() -> None:
    assert orjson.loads(export_body("json", ITEMS)) == ITEMS
    assert export_body("json", ITEMS).decode().splitlines()[1] == "\t{"
    assert yaml.safe_load(export_body("yaml", ITEMS)) == ITEMS


def test_xml_holds_an_element_per_item_and_repeats_a_list_field() -> None:
    root = etree.fromstring(export_body("xml", ITEMS))
    first, second = root
    assert (root.tag, first.tag) == ("data", "data")
    assert first.findtext("maker/name") == "Acme"
    assert [e.text for e in first.findall("tags")] == ["3", "4"]
    assert second.find("name").text is None
    assert second.findall("tags") == []


def test_xml_writes_an_object_with_keys_that_are_no_xml_names_as_json() -> None:
    root = etree.fromstring(export_body("xml", [{"settings": {"a b": 1, "1x": [2]}}]))
    assert orjson.loads(root.findtext("data/settings")) == {"a b": 1, "1x": [2]}


def test_xml_replaces_characters_it_cannot_hold() -> None:
    root = etree.fromstring(export_body("xml", [{"note": "bell\x07!"}]))
    assert root.findtext("data/note") == "bell\ufffd!"


def test_an_empty_list_is_an_empty_csv_and_an_empty_data_element() -> None:
    assert export_body("csv", []) == b""
    assert len(etree.fromstring(export_body("xml", []))) == 0
