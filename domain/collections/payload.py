"""Checks on the values a client writes into a collection, before anything is stored."""

import math
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from domain.collections.coercion import format_datetime
from domain.collections.schema import Collection, Field, FieldType

_MAX_SAFE_INTEGER = 2**53 - 1
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class PayloadError(ValueError):
    """A value a client sent cannot be stored; the message says which and why."""


def _check(field: Field, value: Any) -> Any:
    if value is None:
        return None
    kind = field.type
    if kind is FieldType.JSON:
        return _check_array(field, value) if field.array else value
    if kind is FieldType.BOOLEAN:
        if not isinstance(value, bool):
            raise PayloadError(f'"{field.name}" must be a boolean')
        return value
    if kind is FieldType.INTEGER:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _MAX_SAFE_INTEGER:
            raise PayloadError(f'"{field.name}" must be an integer')
        return _check_bounds(field, value)
    if kind is FieldType.FLOAT:
        if field.decimal_text and isinstance(value, str):
            value = _decimal(field, value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PayloadError(f'"{field.name}" must be a number')
        if not math.isfinite(value):
            raise PayloadError(f'"{field.name}" must be a finite number')
        return _check_bounds(field, value)
    if not isinstance(value, str):
        raise PayloadError(f'"{field.name}" must be a string')
    if "\x00" in value:
        raise PayloadError(f'"{field.name}" must not contain NUL characters')
    if kind is FieldType.UUID:
        try:
            return str(uuid.UUID(value))
        except ValueError:
            raise PayloadError(f'"{field.name}" must be a UUID') from None
    if kind is FieldType.DATETIME:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise PayloadError(f'"{field.name}" must be an ISO 8601 date-time') from None
        return format_datetime(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    if kind is FieldType.DATE:
        return _date(field, value)
    if field.choices and value not in field.choices:
        raise PayloadError(f'"{field.name}" must be one of {", ".join(field.choices)}')
    return value


def _check_array(field: Field, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PayloadError(f'"{field.name}" must be a list of strings')
    if field.choices:
        for element in value:
            if element not in field.choices:
                raise PayloadError(
                    f'"{field.name}" value "{element}" must be one of {", ".join(field.choices)}'
                )
    return value


def _check_bounds(field: Field, value: int | float) -> int | float:
    if field.minimum is not None and value < field.minimum:
        raise PayloadError(f'"{field.name}" must be at least {_number(field.minimum)}')
    if field.maximum is not None and value > field.maximum:
        raise PayloadError(f'"{field.name}" must be at most {_number(field.maximum)}')
    return value


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _decimal(field: Field, text: str) -> float:
    # Decimal text, not float(): "nan", "1e400" and "0x10" are not quantities.
    if not _DECIMAL.fullmatch(text.strip()):
        raise PayloadError(f'"{field.name}" must be a number or decimal text such as "12.50"')
    return float(Decimal(text.strip()))


def _date(field: Field, text: str) -> str:
    try:
        if not _DATE.fullmatch(text):
            raise ValueError(text)
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise PayloadError(f'"{field.name}" must be an ISO 8601 date (YYYY-MM-DD)') from None


def check_payload(collection: Collection, payload: Any) -> dict[str, Any]:
    """The payload's values, type-checked and normalised (UUIDs, date-times).

    Unknown and read-only fields are refused, and so is null in a required field.
    Writable aliases (nested to-many writes) pass through unchecked for the caller.
    """
    if not isinstance(payload, Mapping):
        raise PayloadError("An item must be a JSON object")
    values: dict[str, Any] = {}
    for name, value in payload.items():
        alias = collection.alias(name)
        if alias is not None and alias.writable:
            values[name] = value
            continue
        field = collection.field(name)
        if field is None:
            raise PayloadError(f'"{name}" is not a field of "{collection.name}"')
        if field.readonly:
            raise PayloadError(f'You can\'t change the "{name}" value manually')
        if field.required and value is None:
            raise PayloadError(f'"{name}" can\'t be null')
        values[name] = _check(field, value)
    return values


def missing_required(collection: Collection, values: Mapping[str, Any]) -> str | None:
    """The first required field a new item lacks (a field with a default is never
    lacking), or None."""
    for field in collection.fields:
        if field.required and field.default is None and values.get(field.name) is None:
            return field.name
    return None
