"""Checks on the values a client writes into a collection, before anything is stored."""

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from domain.collections.coercion import format_datetime
from domain.collections.schema import Collection, Field, FieldType

_MAX_SAFE_INTEGER = 2**53 - 1


class PayloadError(ValueError):
    """A value a client sent cannot be stored; the message says which and why."""


def _check(field: Field, value: Any) -> Any:
    if value is None:
        return None
    kind = field.type
    if kind is FieldType.JSON:
        return value
    if kind is FieldType.BOOLEAN:
        if not isinstance(value, bool):
            raise PayloadError(f'"{field.name}" must be a boolean')
        return value
    if kind is FieldType.INTEGER:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _MAX_SAFE_INTEGER:
            raise PayloadError(f'"{field.name}" must be an integer')
        return value
    if kind is FieldType.FLOAT:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PayloadError(f'"{field.name}" must be a number')
        return value
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
    if field.choices and value not in field.choices:
        raise PayloadError(f'"{field.name}" must be one of {", ".join(field.choices)}')
    return value


def check_payload(
    collection: Collection, payload: Any, *, writable_aliases: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The payload's values, type-checked and normalised (UUIDs, date-times).

    Unknown and read-only fields are refused, and so is null in a required field.
    Aliases listed in `writable_aliases` pass through unchecked for the caller to handle.
    """
    if not isinstance(payload, Mapping):
        raise PayloadError("An item must be a JSON object")
    values: dict[str, Any] = {}
    for name, value in payload.items():
        if name in writable_aliases:
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
