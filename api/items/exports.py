"""The `export` parameter: a list (or an item) answered as a file to download, in CSV,
JSON, XML or YAML, written the way Directus writes its exports.

- `json`: the data, indented with tabs.
- `csv`: a header of every column the rows have, in the order they first appear; related
  items (objects) spread into `relation.field` columns, lists (to-many keys, JSON arrays)
  as JSON text, null as an empty cell. `csv_utf8` starts with a byte-order mark, so
  spreadsheets read it as UTF-8.
- `xml`: `<data>` holding one `<data>` element per item, a field per child element, a
  list as the field's element repeated; an object whose keys are no XML names (free
  JSON) as its JSON text.
- `yaml`: the data as a YAML block sequence.
"""

import csv
import io
import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import yaml
from aiohttp import web
from lxml import etree

#: Each format's media type and file extension.
_FORMATS = {
    "csv": ("text/csv", "csv"),
    "csv_utf8": ("text/csv; charset=utf-8", "csv"),
    "json": ("application/json", "json"),
    "xml": ("text/xml", "xml"),
    "yaml": ("text/yaml", "yaml"),
}
# Element names this writer gives out: a conservative subset of XML names.
_XML_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Characters XML 1.0 cannot hold, not even escaped.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def export_response(collection: str, format: str, data: Any, now: datetime) -> web.Response:
    """The data as a file attachment named `"<collection> <date>.<ext>"`."""
    media_type, extension = _FORMATS[format]
    filename = f"{collection} {now:%Y%m%d-%H%M%S}.{extension}"
    return web.Response(
        body=export_body(format, data),
        headers={
            "Content-Type": media_type,
            "Content-Disposition": f'attachment; filename="{filename}"',
        },
    )


def export_body(format: str, data: Any) -> bytes:
    """The data written in one of the export formats."""
    match format:
        case "json":
            return json.dumps(data, indent="\t", ensure_ascii=False).encode()
        case "csv":
            return _csv(data).encode()
        case "csv_utf8":
            return _csv(data).encode("utf-8-sig")
        case "xml":
            return _xml(data)
        case "yaml":
            return yaml.safe_dump(data, allow_unicode=True, sort_keys=False).encode()
    raise ValueError(f"unknown export format {format!r}")


def _csv(data: Any) -> str:
    items = data if isinstance(data, list) else [] if data is None else [data]
    rows = [_flat(item) if isinstance(item, Mapping) else {"value": _cell(item)} for item in items]
    if not rows:
        return ""
    header = list(dict.fromkeys(column for row in rows for column in row))
    # A relation that is null in some rows reads as empty cells of its dotted columns.
    header = [
        column
        for column in header
        if not any(other.startswith(f"{column}.") for other in header)
        or any(row.get(column) for row in rows)
    ]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows([row.get(column, "") for column in header] for row in rows)
    return out.getvalue()


def _flat(item: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """An item's cells, related items spread into `relation.field` columns."""
    cells: dict[str, str] = {}
    for key, value in item.items():
        if isinstance(value, Mapping) and value:
            cells.update(_flat(value, f"{prefix}{key}."))
        else:
            cells[f"{prefix}{key}"] = _cell(value)
    return cells


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | Mapping):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _xml(data: Any) -> bytes:
    root = etree.Element("data")
    if isinstance(data, list):
        _append(root, "data", data)
    elif isinstance(data, Mapping):
        _fill(root, data)
    elif data is not None:
        root.text = _text(data)
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def _append(parent: Any, name: str, value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            _append(parent, name, item)
        return
    element = etree.SubElement(parent, name)
    if isinstance(value, Mapping):
        _fill(element, value)
    elif value is not None:
        element.text = _text(value)


def _fill(element: Any, item: Mapping[str, Any]) -> None:
    if not all(isinstance(key, str) and _XML_NAME.fullmatch(key) for key in item):
        element.text = _text(json.dumps(item, ensure_ascii=False))
        return
    for key, value in item.items():
        _append(element, key, value)


def _text(value: Any) -> str:
    return _NOT_XML.sub("\ufffd", _cell(value))
