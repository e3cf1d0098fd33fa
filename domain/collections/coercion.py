"""Filter values cast to their field's type as the tables hold it, and the checks behind
the casts: storable text, numbers, date-times, regular expressions."""

from __future__ import annotations

import math
import re
import uuid
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

from domain.collections.query_errors import QueryError
from domain.collections.schema import Field, FieldType

#: Largest number a filter, limit, offset or page may hold (JavaScript's safe integers).
MAX_SAFE_INTEGER = 2**53 - 1
_NUMBER_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def coerce_value(value: str | int | float | bool, field: Field, op: str = "_eq") -> Any:
    """A filter value cast to the type of `field`, the way the table holds it.

    Numbers from numeric text, date-times to the stored UTC text, UUIDs to lower case,
    anything to text for text fields. Raises QueryError when the value cannot be cast.
    """
    match field.type:
        case FieldType.INTEGER | FieldType.FLOAT:
            return _as_number(value, op)
        case FieldType.BOOLEAN:
            return _as_boolean(value, op)
        case FieldType.DATETIME:
            return _as_datetime(value, op)
        case FieldType.DATE:
            return _as_date(value, op)
        case FieldType.UUID:
            return _as_uuid(_as_text(value))
        case _:
            return _as_text(value)


def check_text(text: str, what: str) -> None:
    """Refuse text no database can store: NUL characters or lone surrogates."""
    if "\x00" in text or _has_surrogate(text):
        raise QueryError(f"{what} contains characters that cannot be stored.")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _as_text(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_uuid(text: str) -> str:
    try:
        return str(uuid.UUID(text))
    except ValueError:
        # Not a UUID, so it matches no stored UUID; still a valid comparison.
        return text


def _as_number(value: str | int | float | bool, op: str) -> int | float:
    if isinstance(value, bool):
        return int(value)
    if not isinstance(value, str):
        return value
    number = parse_number(value)
    if number is None:
        raise QueryError(f'The filter value for "{op}" is not a valid number.')
    return number


def parse_number(text: str) -> int | float | None:
    """The number a text spells (decimal, optional exponent; surrounding blanks allowed),
    or None when it spells none or one beyond the safe integers."""
    text = text.strip()
    if len(text) > 40 or not _NUMBER_TEXT.fullmatch(text):
        return None
    number: int | float = int(text) if text.lstrip("+-").isdigit() else float(text)
    return number if math.isfinite(number) and abs(number) <= MAX_SAFE_INTEGER else None


def _as_boolean(value: str | int | float | bool, op: str) -> bool:
    if isinstance(value, bool):
        return value
    if value in (0, 1, "0", "1"):
        return value in (1, "1")
    raise QueryError(f'The filter value for "{op}" has to be a boolean.')


def _as_datetime(value: str | int | float | bool, op: str) -> str:
    if isinstance(value, str):
        text = value.strip()
        # An unencoded "+" of an offset arrives from a query string as a space.
        if len(text) > 19 and text[-6] == " " and text[-3] == ":":
            text = f"{text[:-6]}+{text[-5:]}"
        try:
            return format_datetime(datetime.fromisoformat(text))
        except (ValueError, OverflowError):
            pass
    raise QueryError(f'The filter value for "{op}" is not a valid date-time.')


def _as_date(value: str | int | float | bool, op: str) -> str:
    if isinstance(value, str):
        text = value.strip()
        try:
            # A date-time compares by its day, as a date column holds no time.
            return (
                date.fromisoformat(text).isoformat()
                if len(text) == 10
                else datetime.fromisoformat(text).date().isoformat()
            )
        except (ValueError, OverflowError):
            pass
    raise QueryError(f'The filter value for "{op}" is not a valid date.')


@lru_cache(maxsize=256)
def regex_pattern(text: str) -> re.Pattern[str]:
    """The compiled `_regex` value; like Directus, `/.../` slashes around it are dropped."""
    wrapped = len(text) >= 2 and text.startswith("/") and text.endswith("/")
    return re.compile(text[1:-1] if wrapped else text)


def format_datetime(moment: datetime) -> str:
    """A date-time as the tables hold it: UTC, `YYYY-MM-DDTHH:MM:SS.mmmZ` (naive = UTC)."""
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:"
        f"{utc.second:02d}.{utc.microsecond // 1000:03d}Z"
    )
