"""The `jsonschema` library set up like our Rust validator: the second opinion on validity."""

import calendar
import re
from typing import Any

import jsonschema

from infrastructure.epcis_schema import DocumentKind, document_schema

_DATE_TIME = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))$"
)
_LAST_MINUTE_OF_THE_DAY = 23 * 60 + 59


def is_rfc3339_date_time(value: object) -> bool:
    """RFC 3339 date-time as jsonschema-rs checks it; `jsonschema` alone would skip the check.

    Like every format check, it passes values that are not strings.
    """
    if not isinstance(value, str):
        return True
    match = _DATE_TIME.match(value)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    sign, offset_hours, offset_minutes = match.groups()[6:]
    offset = 0
    if sign is not None:
        if int(offset_hours) > 23 or int(offset_minutes) > 59:
            return False
        offset = (int(offset_hours) * 60 + int(offset_minutes)) * (1 if sign == "+" else -1)
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    # A leap second exists only as the last second of a UTC day.
    return second < 60 or (hour * 60 + minute - offset) % 1440 == _LAST_MINUTE_OF_THE_DAY


def reference_validator(kind: DocumentKind) -> Any:
    """A `jsonschema` Draft7Validator for our schema with the date-time check switched on."""
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time")(is_rfc3339_date_time)
    return jsonschema.Draft7Validator(document_schema(kind), format_checker=checker)
