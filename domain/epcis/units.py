"""UN/CEFACT Recommendation 20 units, and their conversion to SI for sensor queries.

A sensor report states its values in its own `uom`; a query parameter names the unit it
compares in (`GE_value_FAH`). Both are converted to the SI unit of their dimension, so a
report in CEL answers a query in FAH, and units of other dimensions never match. A unit
this table does not know compares only with values in the very same unit.
"""

import math
from typing import NamedTuple


class Unit(NamedTuple):
    """A unit's dimension and its conversion to SI: si = value * factor + offset."""

    dimension: str
    factor: float
    offset: float = 0.0


_UNITS: dict[str, Unit] = {
    # temperature (kelvin)
    "KEL": Unit("temperature", 1.0),
    "CEL": Unit("temperature", 1.0, 273.15),
    "FAH": Unit("temperature", 5 / 9, 459.67 * 5 / 9),
    # mass (kilogram)
    "KGM": Unit("mass", 1.0),
    "GRM": Unit("mass", 1e-3),
    "MGM": Unit("mass", 1e-6),
    "MC": Unit("mass", 1e-9),
    "TNE": Unit("mass", 1e3),
    "LBR": Unit("mass", 0.45359237),
    "ONZ": Unit("mass", 0.028349523125),
    # length (metre)
    "MTR": Unit("length", 1.0),
    "KMT": Unit("length", 1e3),
    "CMT": Unit("length", 1e-2),
    "MMT": Unit("length", 1e-3),
    "4H": Unit("length", 1e-6),
    "INH": Unit("length", 0.0254),
    "FOT": Unit("length", 0.3048),
    "YRD": Unit("length", 0.9144),
    "SMI": Unit("length", 1609.344),
    "NMI": Unit("length", 1852.0),
    # area (square metre)
    "MTK": Unit("area", 1.0),
    "CMK": Unit("area", 1e-4),
    "KMK": Unit("area", 1e6),
    "HAR": Unit("area", 1e4),
    "FTK": Unit("area", 0.09290304),
    "INK": Unit("area", 0.00064516),
    # volume (cubic metre)
    "MTQ": Unit("volume", 1.0),
    "LTR": Unit("volume", 1e-3),
    "DMQ": Unit("volume", 1e-3),
    "MLT": Unit("volume", 1e-6),
    "CMQ": Unit("volume", 1e-6),
    "GLL": Unit("volume", 0.003785411784),
    "GLI": Unit("volume", 0.00454609),
    "QT": Unit("volume", 0.000946352946),
    "OZA": Unit("volume", 2.95735295625e-5),
    # time (second)
    "SEC": Unit("time", 1.0),
    "C26": Unit("time", 1e-3),
    "MIN": Unit("time", 60.0),
    "HUR": Unit("time", 3600.0),
    "DAY": Unit("time", 86400.0),
    "WEE": Unit("time", 604800.0),
    # speed (metre per second)
    "MTS": Unit("speed", 1.0),
    "KMH": Unit("speed", 1 / 3.6),
    "HM": Unit("speed", 0.44704),
    "KNT": Unit("speed", 1852 / 3600),
    # pressure (pascal)
    "PAL": Unit("pressure", 1.0),
    "A97": Unit("pressure", 100.0),
    "KPA": Unit("pressure", 1e3),
    "MPA": Unit("pressure", 1e6),
    "BAR": Unit("pressure", 1e5),
    "MBR": Unit("pressure", 100.0),
    "ATM": Unit("pressure", 101325.0),
    "PS": Unit("pressure", 6894.757293168361),
    # energy (joule), power (watt)
    "JOU": Unit("energy", 1.0),
    "KJO": Unit("energy", 1e3),
    "WHR": Unit("energy", 3600.0),
    "KWH": Unit("energy", 3.6e6),
    "WTT": Unit("power", 1.0),
    "KWT": Unit("power", 1e3),
    # electricity, frequency, light, angle
    "VLT": Unit("voltage", 1.0),
    "2Z": Unit("voltage", 1e-3),
    "KVT": Unit("voltage", 1e3),
    "AMP": Unit("current", 1.0),
    "4K": Unit("current", 1e-3),
    "HTZ": Unit("frequency", 1.0),
    "KHZ": Unit("frequency", 1e3),
    "MHZ": Unit("frequency", 1e6),
    "LUX": Unit("illuminance", 1.0),
    "DD": Unit("angle", math.pi / 180),
    "C81": Unit("angle", 1.0),
    # mass concentration (kilogram per cubic metre), e.g. absolute humidity
    "KMQ": Unit("mass concentration", 1.0),
    "A93": Unit("mass concentration", 1e-3),
    "GL": Unit("mass concentration", 1.0),
    # ratios
    "P1": Unit("ratio", 1e-2),
    "C62": Unit("ratio", 1.0),
}

#: Significant digits kept of converted values, so 68 FAH and 20 CEL are one number.
_DIGITS = 12


def in_si(value: float, uom: str | None) -> tuple[str, float]:
    """(dimension, value in SI) of a value stated in `uom`; a unit the table does not
    know is its own dimension (`uom:<code>`), and no unit is `none`."""
    if uom is None:
        return ("none", _rounded(value))
    unit = _UNITS.get(uom)
    if unit is None:
        return (f"uom:{uom}", _rounded(value))
    return (unit.dimension, _rounded(value * unit.factor + unit.offset))


def in_si_difference(value: float, uom: str | None) -> tuple[str, float]:
    """`in_si` for a spread (a standard deviation): scaled, never offset."""
    unit = _UNITS.get(uom) if uom is not None else None
    if unit is None:
        return in_si(value, uom)
    return (unit.dimension, _rounded(value * unit.factor))


def _rounded(value: float) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, _DIGITS - 1 - math.floor(math.log10(abs(value))))
