"""The export file of a code reservation: its codes as CSV, JSON or XML."""

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass

EXPORT_TYPES = ("csv", "json", "xml")
CSV_COLUMNS = ("id", "type", "code", "gtin", "digital_link", "status")

_MEDIA_TYPES = {"csv": "text/csv", "json": "application/json", "xml": "application/xml"}
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


def _checked(export_type: str) -> str:
    if export_type not in EXPORT_TYPES:
        raise ValueError(
            f"unknown export type {export_type!r}: expected one of {', '.join(EXPORT_TYPES)}"
        )
    return export_type


def media_type(export_type: str) -> str:
    """The Content-Type of an export file of that type (ValueError for an unknown type)."""
    return _MEDIA_TYPES[_checked(export_type)]


def extension(export_type: str) -> str:
    """The file name extension, dot included, of an export file of that type (ValueError for
    an unknown type)."""
    return "." + _checked(export_type)


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


_WRITERS: dict[str, Callable[[str, Sequence[ExportedCode], str], bytes]] = {
    "csv": _csv,
    "json": _json,
    "xml": _xml,
}


def export_codes(
    export_type: str,
    reservation_id: str,
    codes: Sequence[ExportedCode],
    url_suffix: str | None,
) -> bytes:
    """The export file of a reservation, UTF-8; each digital link gets `url_suffix` as given.

    Raises ValueError for an export type not in EXPORT_TYPES.
    """
    return _WRITERS[_checked(export_type)](reservation_id, codes, url_suffix or "")
