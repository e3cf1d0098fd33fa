"""Durations written as Directus writes them in its settings: `15m`, `7d`, `900000`."""

import re

_UNITS = {
    "ms": 0.001,
    "s": 1,
    "m": 60,
    "h": 3600,
    "d": 86_400,
    "w": 604_800,
    "y": 31_557_600,
}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|y)?\s*$")


def parse_duration(value: object) -> float:
    """Seconds in a duration. Text is read as Directus reads it (a bare number is
    milliseconds); a number given in code is already seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    match = _DURATION.match(str(value))
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(f"{value!r} is not a duration such as 900000, 15m, 12h or 7d")
    return float(match.group(1)) * _UNITS[match.group(2) or "ms"]
