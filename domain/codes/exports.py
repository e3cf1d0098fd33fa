"""The export file of a code reservation: its codes as CSV, JSON or XML.

`export_type` is an open list (spec §2): a reservation may name any type, and the
reservation worker fails one this service has no exporter for. `EXPORTERS`, at the end,
is the one place an export type is added.
"""

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass

CSV_COLUMNS = ("id", "type", "code", "gtin", "digital_link", "status")
# ElementTree's own declaration is single-quoted; this is the form most readers expect.
_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


@dataclass(frozen=True)
class ExportedCode:
    """One code as its reservation's export file lists it."""

    code: str
    digital_link: str
    type: str
    gtin: str | None
    status: str
    id: str


#: Writes the export file of a reservation (its key, its codes, the URL suffix) as bytes.
Writer = Callable[[str, Sequence[ExportedCode], str], bytes]


@dataclass(frozen=True)
class Exporter:
    """How one export type is written: the file's media type and its writer."""

    media_type: str
    write: Writer


def _csv(reservation_id: str, codes: Sequence[ExportedCode], suffix: str) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(
        (c.id, c.type, c.code, c.gtin or "", c.digital_link + suffix, c.status) for c in codes
    )
    return out.getvalue().encode("utf-8")


def _json(reservation_id: str, codes: Sequence[ExportedCode], suffix: str) -> bytes:
    document = {
        "reservation": reservation_id,
        "count": len(codes),
        "codes": [
            {
                "id": c.id,
                "type": c.type,
                "code": c.code,
                "gtin": c.gtin,
                "digital_link": c.digital_link + suffix,
                "status": c.status,
            }
            for c in codes
        ],
    }
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


def _xml(reservation_id: str, codes: Sequence[ExportedCode], suffix: str) -> bytes:
    # One small tree per code, serialised at once: a tree of a million codes would hold
    # four million elements in memory before the first byte is written.
    root = ET.Element("codes", reservation=reservation_id, count=str(len(codes)))
    # ElementTree writes an opening tag only as part of a whole element.
    opening = ET.tostring(root, encoding="unicode", short_empty_elements=False)
    parts = [_XML_DECLARATION, opening.removesuffix("</codes>")]
    for c in codes:
        element = ET.Element("code", id=c.id, type=c.type, status=c.status)
        ET.SubElement(element, "value").text = c.code
        # No element, rather than an empty one, tells a missing GTIN from an empty string.
        if c.gtin is not None:
            ET.SubElement(element, "gtin").text = c.gtin
        ET.SubElement(element, "digitalLink").text = c.digital_link + suffix
        parts.append(ET.tostring(element, encoding="unicode"))
    parts.append("</codes>")
    return "".join(parts).encode("utf-8")


#: The export types this service writes, by `export_type` (also the file extension).
#: A new one is a writer above and an entry here; nothing else names them.
EXPORTERS: dict[str, Exporter] = {
    "csv": Exporter("text/csv", _csv),
    "json": Exporter("application/json", _json),
    "xml": Exporter("application/xml", _xml),
}
EXPORT_TYPES = tuple(EXPORTERS)


def _exporter(export_type: str) -> Exporter:
    exporter = EXPORTERS.get(export_type)
    if exporter is None:
        raise ValueError(
            f"unknown export type {export_type!r}: expected one of {', '.join(EXPORT_TYPES)}"
        )
    return exporter


def media_type(export_type: str) -> str:
    """The Content-Type of an export file of that type (ValueError for an unknown type)."""
    return _exporter(export_type).media_type


def extension(export_type: str) -> str:
    """The file name extension, dot included, of an export file of that type (ValueError for
    an unknown type)."""
    _exporter(export_type)
    return "." + export_type


def export_codes(
    export_type: str,
    reservation_id: str,
    codes: Sequence[ExportedCode],
    url_suffix: str | None,
) -> bytes:
    """The export file of a reservation, UTF-8; each digital link gets `url_suffix` as given.

    Raises ValueError for an export type not in EXPORT_TYPES.
    """
    return _exporter(export_type).write(reservation_id, codes, url_suffix or "")
