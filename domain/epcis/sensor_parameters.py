"""The sensor query parameters (EPCIS 2.0 §8.2.7.1) and `*_quantity_<uom>`, as matches on
the sensor and quantity index tables.

Each parameter is evaluated on its own: two parameters may be satisfied by different
reports of one event, as the standard defines them (and FasTnT and Oliot do).
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from domain.epcis.sensor_terms import hex_binary, measurement_type
from domain.epcis.timestamps import InvalidTimestamp, timestamp_micros
from domain.epcis.units import in_si, in_si_difference

Table = Literal["elements", "reports", "quantities"]
_OPERATORS = {"EQ": "IN", "GT": ">", "GE": ">=", "LT": "<", "LE": "<="}


class SensorParameterError(ValueError):
    """A sensor parameter with a value of the wrong shape."""


@dataclass(frozen=True)
class ColumnMatch:
    """Events with a row in one of `tables` whose `column` is one of `values` (IN) or
    compares with the one value given, and (for measured values) whose dimension is
    `dimension`; EXISTS: any row at all."""

    tables: tuple[Table, ...]
    column: str
    operator: str
    values: tuple[Any, ...] = ()
    dimension: str | None = None


#: Fixed names: (tables, column, how a value is read).
_LISTS: dict[str, tuple[tuple[Table, ...], str, str]] = {
    "EQ_type": (("reports",), "type", "type"),
    "EQ_deviceID": (("elements", "reports"), "device_id", "text"),
    "EQ_dataProcessingMethod": (("elements", "reports"), "data_processing_method", "text"),
    "EQ_microorganism": (("reports",), "microorganism", "text"),
    "EQ_chemicalSubstance": (("reports",), "chemical_substance", "text"),
    "EQ_bizRules": (("elements", "reports"), "biz_rules", "text"),
    "EQ_stringValue": (("reports",), "string_value", "text"),
    "EQ_hexBinaryValue": (("reports",), "hex_binary_value", "hex"),
    "EQ_uriValue": (("reports",), "uri_value", "text"),
}
#: The sensor parameters with fixed names that list values.
SENSOR_LIST_PARAMETERS = tuple(_LISTS)
_TIMES: dict[str, tuple[tuple[Table, ...], str]] = {
    "startTime": (("elements",), "start_time"),
    "endTime": (("elements",), "end_time"),
    "time": (("elements", "reports"), "time"),
}
_MEASURED = ("value", "minValue", "maxValue", "meanValue", "sDev", "percValue")
_COLUMNS = {
    "value": "value",
    "minValue": "min_value",
    "maxValue": "max_value",
    "meanValue": "mean_value",
    "sDev": "sdev",
    "percValue": "perc_value",
}
_WITH_UNIT = re.compile(
    r"(EQ|GT|GE|LT|LE)_(value|minValue|maxValue|meanValue|sDev|percValue|quantity)_([A-Z0-9]{1,4})"
)
_TIME_BOUND = re.compile(r"(GE|LT)_(startTime|endTime|time)")
_PERC_RANK = re.compile(r"(GT|GE|LT|LE)_percRank")


def is_sensor_parameter(name: str) -> bool:
    """Whether `name` is one of the parameters this module reads."""
    return (
        name in _LISTS
        or name in ("EQ_booleanValue", "EXISTS_sensorElementList")
        or bool(_WITH_UNIT.fullmatch(name) or _TIME_BOUND.fullmatch(name))
        or bool(_PERC_RANK.fullmatch(name))
    )


def parse_sensor_match(name: str, values: Sequence[str]) -> ColumnMatch:
    """The match a sensor (or `*_quantity_<uom>`) parameter states."""
    if name in _LISTS:
        tables, column, kind = _LISTS[name]
        read = {"type": measurement_type, "hex": hex_binary}.get(kind, str)
        return ColumnMatch(tables, column, "IN", tuple(read(v) for v in values))
    if name == "EQ_booleanValue":
        value = _one(name, values).lower()
        if value not in ("true", "false"):
            raise SensorParameterError(f"EQ_booleanValue: {values[0]!r} is not true or false")
        return ColumnMatch(("reports",), "boolean_value", "IN", (value,))
    if name == "EXISTS_sensorElementList":
        return ColumnMatch(("elements",), "element", "EXISTS")
    if match := _TIME_BOUND.fullmatch(name):
        op, field = match.groups()
        tables, column = _TIMES[field]
        try:
            instant = timestamp_micros(_one(name, values))
        except InvalidTimestamp as exc:
            raise SensorParameterError(f"{name}: {exc}") from exc
        return ColumnMatch(tables, column, _OPERATORS[op], (instant,))
    if match := _PERC_RANK.fullmatch(name):
        return ColumnMatch(
            ("reports",), "perc_rank", _OPERATORS[match.group(1)], (_number(name, values[0]),)
        )
    match = _WITH_UNIT.fullmatch(name)
    if match is None:
        raise SensorParameterError(f"{name} is not a sensor parameter")
    op, field, uom = match.groups()
    if op != "EQ":
        _one(name, values)
    convert = in_si_difference if field == "sDev" else in_si
    converted = [convert(_number(name, value), uom) for value in values]
    dimension = converted[0][0]
    numbers = tuple(number for _, number in converted)
    if field == "quantity":
        return ColumnMatch(("quantities",), "si_quantity", _OPERATORS[op], numbers, dimension)
    return ColumnMatch(("reports",), _COLUMNS[field], _OPERATORS[op], numbers, dimension)


def _one(name: str, values: Sequence[str]) -> str:
    if len(values) != 1:
        raise SensorParameterError(f"{name} takes exactly one value, got {len(values)}")
    return values[0]


def _number(name: str, text: str) -> float:
    try:
        number = float(text)
    except ValueError as exc:
        raise SensorParameterError(f"{name}: {text!r} is not a number") from exc
    if not math.isfinite(number):
        raise SensorParameterError(f"{name}: {text!r} is not a finite number")
    return number
