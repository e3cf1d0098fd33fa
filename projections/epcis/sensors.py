"""The sensor index tables: one row per sensor element, one per sensor report."""

from collections.abc import Iterable
from typing import Any

from domain.epcis.index_terms import EventTerms
from domain.epcis.sensor_terms import ELEMENT_COLUMNS, REPORT_COLUMNS
from infrastructure.connection import Connection

#: Text longer than this is kept in the stored event but not indexed (B-tree entry limit).
_MAX_TEXT = 600

#: Report columns matched by value: each gets a partial index, costing nothing to the
#: many reports that lack it.
_REPORT_LOOKUPS = (
    "device_id",
    "data_processing_method",
    "microorganism",
    "chemical_substance",
    "biz_rules",
    "string_value",
    "hex_binary_value",
    "uri_value",
    "time",
    "perc_rank",
)
_ELEMENT_LOOKUPS = ("time", "start_time", "end_time", "device_id", "data_processing_method")
#: Measured values other than `value` (whose index leads with the type), each indexed
#: within its dimension.
_MEASURED = ("min_value", "max_value", "mean_value", "sdev", "perc_value")
_NUMBERS = {"value", "perc_rank", *_MEASURED}
_WHOLE_NUMBERS = {"element", "time", "start_time", "end_time"}


def _column(name: str) -> str:
    # Instants and element numbers are whole, measured values real, the rest text.
    if name in _WHOLE_NUMBERS:
        return f"{name} {{bigint}}"
    if name in _NUMBERS:
        return f"{name} {{real}}"
    return f"{name} {{key_text}}"


SCHEMA = (
    "CREATE TABLE IF NOT EXISTS epcis_event_sensor_elements (position {bigint} NOT NULL, "
    + ", ".join(_column(c) for c in ELEMENT_COLUMNS)
    + ")",
    "CREATE INDEX IF NOT EXISTS epcis_event_sensor_elements_position"
    " ON epcis_event_sensor_elements (position)",
    *(
        f"CREATE INDEX IF NOT EXISTS epcis_event_sensor_elements_{c}"
        f" ON epcis_event_sensor_elements ({c}, position) WHERE {c} IS NOT NULL"
        for c in _ELEMENT_LOOKUPS
    ),
    "CREATE TABLE IF NOT EXISTS epcis_event_sensor_reports (position {bigint} NOT NULL, "
    + ", ".join(_column(c) for c in REPORT_COLUMNS)
    + ")",
    "CREATE INDEX IF NOT EXISTS epcis_event_sensor_reports_position"
    " ON epcis_event_sensor_reports (position)",
    # The common sensor query: a measurement type and a value range in some unit.
    "CREATE INDEX IF NOT EXISTS epcis_event_sensor_reports_type"
    " ON epcis_event_sensor_reports (type, dimension, value, position)",
    *(
        f"CREATE INDEX IF NOT EXISTS epcis_event_sensor_reports_{c}"
        f" ON epcis_event_sensor_reports ({c}, position) WHERE {c} IS NOT NULL"
        for c in _REPORT_LOOKUPS
    ),
    *(
        f"CREATE INDEX IF NOT EXISTS epcis_event_sensor_reports_{c}"
        f" ON epcis_event_sensor_reports (dimension, {c}, position) WHERE {c} IS NOT NULL"
        for c in _MEASURED
    ),
)
TABLES = ("epcis_event_sensor_reports", "epcis_event_sensor_elements")


def _indexable(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(
        None if isinstance(value, str) and len(value) > _MAX_TEXT else value for value in row
    )


def insert_sensor_rows(conn: Connection, events: Iterable[tuple[int, EventTerms]]) -> None:
    """Insert the sensor rows of each (position, terms) pair."""
    elements: list[tuple[Any, ...]] = []
    reports: list[tuple[Any, ...]] = []
    for position, terms in events:
        elements.extend((position, *_indexable(row)) for row in terms.sensor_elements)
        reports.extend((position, *_indexable(row)) for row in terms.sensor_reports)
    conn.insert_many("epcis_event_sensor_elements", ("position", *ELEMENT_COLUMNS), elements)
    conn.insert_many("epcis_event_sensor_reports", ("position", *REPORT_COLUMNS), reports)
