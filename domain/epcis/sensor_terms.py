"""What sensor data is found by: one row per sensor element and one per sensor report.

Values in a report are stated in its `uom`; they are indexed in SI with their dimension
(`domain/epcis/units.py`), so a query in one unit finds reports in another of the same
dimension. IRIs are indexed as the IRIs their CURIEs stand for.
"""

from collections.abc import Iterator, Mapping
from typing import Any

from domain.epcis.cbv import normalise_cbv
from domain.epcis.curies import expand_curie
from domain.epcis.field_terms import instant
from domain.epcis.units import in_si, in_si_difference

#: (element, time, start_time, end_time, device_id, data_processing_method, biz_rules)
ElementRow = tuple[int, int | None, int | None, int | None, str | None, str | None, str | None]
#: The report columns, in the order of REPORT_COLUMNS.
ReportRow = tuple[Any, ...]

REPORT_COLUMNS = (
    "element",
    "type",
    "device_id",
    "data_processing_method",
    "microorganism",
    "chemical_substance",
    "biz_rules",
    "string_value",
    "hex_binary_value",
    "uri_value",
    "boolean_value",
    "time",
    "dimension",
    "value",
    "min_value",
    "max_value",
    "mean_value",
    "sdev",
    "perc_rank",
    "perc_value",
)
ELEMENT_COLUMNS = (
    "element",
    "time",
    "start_time",
    "end_time",
    "device_id",
    "data_processing_method",
    "biz_rules",
)

_GS1_VOCABULARY = "https://gs1.org/voc/"


def measurement_type(value: str) -> str:
    """A measurement type in one spelling: `Temperature`, `gs1:Temperature` and the
    GS1 Web Vocabulary IRI are one type."""
    if value.startswith("gs1:"):
        return _GS1_VOCABULARY + value[4:]
    return normalise_cbv("measurementType", value)


def hex_binary(value: str) -> str:
    """Hex digits in one case: `f0` and `F0` are the same octet."""
    return value.upper()


def sensor_rows(
    event: Mapping[str, Any], namespaces: Mapping[str, str]
) -> tuple[list[ElementRow], list[ReportRow]]:
    """The element rows and report rows of an event's `sensorElementList`."""
    elements: list[ElementRow] = []
    reports: list[ReportRow] = []
    for index, element in enumerate(_mappings(event.get("sensorElementList"))):
        metadata = element.get("sensorMetadata")
        meta: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}
        elements.append(
            (
                index,
                _instant(meta.get("time")),
                _instant(meta.get("startTime")),
                _instant(meta.get("endTime")),
                _iri(meta.get("deviceID"), namespaces),
                _iri(meta.get("dataProcessingMethod"), namespaces),
                _iri(meta.get("bizRules"), namespaces),
            )
        )
        reports.extend(
            _report(index, r, namespaces) for r in _mappings(element.get("sensorReport"))
        )
    return elements, reports


def _report(element: int, report: Mapping[str, Any], namespaces: Mapping[str, str]) -> ReportRow:
    uom = report.get("uom") if isinstance(report.get("uom"), str) else None
    kind = report.get("type")
    boolean = report.get("booleanValue")
    hex_value = report.get("hexBinaryValue")
    string = report.get("stringValue")
    dimension = in_si(0.0, uom)[0]
    return (
        element,
        measurement_type(kind) if isinstance(kind, str) else None,
        _iri(report.get("deviceID"), namespaces),
        _iri(report.get("dataProcessingMethod"), namespaces),
        _iri(report.get("microorganism"), namespaces),
        _iri(report.get("chemicalSubstance"), namespaces),
        _iri(report.get("bizRules"), namespaces),
        string if isinstance(string, str) else None,
        hex_binary(hex_value) if isinstance(hex_value, str) else None,
        _iri(report.get("uriValue"), namespaces),
        ("true" if boolean else "false") if isinstance(boolean, bool) else None,
        _instant(report.get("time")),
        dimension,
        _measured(report.get("value"), uom),
        _measured(report.get("minValue"), uom),
        _measured(report.get("maxValue"), uom),
        _measured(report.get("meanValue"), uom),
        _spread(report.get("sDev"), uom),
        _number(report.get("percRank")),
        _measured(report.get("percValue"), uom),
    )


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    for item in value if isinstance(value, list) else ():
        if isinstance(item, Mapping):
            yield item


def _iri(value: Any, namespaces: Mapping[str, str]) -> str | None:
    return expand_curie(value, namespaces) if isinstance(value, str) else None


def _instant(value: Any) -> int | None:
    return instant(value) if isinstance(value, str) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _measured(value: Any, uom: str | None) -> float | None:
    number = _number(value)
    return None if number is None else in_si(number, uom)[1]


def _spread(value: Any, uom: str | None) -> float | None:
    number = _number(value)
    return None if number is None else in_si_difference(number, uom)[1]
