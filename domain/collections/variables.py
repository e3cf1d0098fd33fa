"""The dynamic variables of filters and presets (`$CURRENT_USER`, `$NOW(-1 year)`, ...)
and their resolution."""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from domain.collections.coercion import format_datetime
from domain.collections.filters import And, Condition, Filter, Or, Related
from domain.collections.query_errors import QueryError


@dataclass(frozen=True)
class VariableContext:
    """Who asks and when: the values of the dynamic variables."""

    user_id: str | None
    role_id: str | None
    #: The role and its ancestors.
    roles: tuple[str, ...]
    policies: tuple[str, ...]
    now: datetime


_NOW_ADJUSTMENT = re.compile(r"\$NOW\(\s*([+-]?)\s*(\d{1,12})\s*([A-Za-z]*)\s*\)")
_VARIABLE_PATH = re.compile(r"\$CURRENT_(USER|ROLES?|POLICIES)\.")
_VARIABLES = frozenset(
    {"$CURRENT_USER", "$CURRENT_ROLE", "$CURRENT_ROLES", "$CURRENT_POLICIES", "$NOW"}
)
_UNITS: Mapping[str, str] = {
    **dict.fromkeys(("milliseconds", "millisecond", "msecs", "msec", "ms"), "ms"),
    **dict.fromkeys(("seconds", "second", "secs", "sec", "s"), "s"),
    **dict.fromkeys(("minutes", "minute", "mins", "min", "m"), "m"),
    **dict.fromkeys(("hours", "hour", "hrs", "hr", "h"), "h"),
    **dict.fromkeys(("days", "day", "d", ""), "d"),
    **dict.fromkeys(("weeks", "week", "w"), "w"),
    **dict.fromkeys(("months", "month", "mth", "mo"), "mo"),
    **dict.fromkeys(("years", "year", "yrs", "yr", "y"), "y"),
}
_DURATIONS: Mapping[str, timedelta] = {
    "ms": timedelta(milliseconds=1),
    "s": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}


def resolve_variables(filter: Filter, context: VariableContext) -> Filter:
    """The filter with `$CURRENT_USER`, `$CURRENT_ROLE`, `$CURRENT_ROLES`,
    `$CURRENT_POLICIES`, `$NOW` and `$NOW(<adjustment>)` replaced by their values.

    `validate` leaves variables in place, so resolving may come before or after it;
    `ItemReader` validates again what it is given, and refuses variables left unresolved.
    `$NOW` becomes the stored date-time text. Field paths behind a variable
    (`$CURRENT_USER.role`) are not supported and raise QueryError.
    """
    match filter:
        case And(items):
            return And(tuple(resolve_variables(item, context) for item in items))
        case Or(items):
            return Or(tuple(resolve_variables(item, context) for item in items))
        case Related():
            return replace(filter, filter=resolve_variables(filter.filter, context))
        case Condition():
            return replace(filter, value=resolve_value(filter.value, context))


def resolve_value(value: Any, context: VariableContext) -> Any:
    """A value with its dynamic variables replaced (presets, filter values)."""
    if isinstance(value, str):
        return _resolve_text(value, context)
    if isinstance(value, list | tuple):
        # A list-valued variable inside a list adds its items, as Directus does.
        resolved: list[Any] = []
        for item in value:
            item_value = _resolve_text(item, context) if isinstance(item, str) else item
            resolved.extend(item_value if isinstance(item_value, list) else [item_value])
        return resolved
    return value


def _resolve_text(text: str, context: VariableContext) -> Any:
    if not is_variable(text):
        return text
    if text == "$NOW":
        return format_datetime(context.now)
    if text.startswith("$NOW("):
        amount, unit = _adjustment(text)
        return format_datetime(_adjusted(context.now, amount, unit, text))
    values: dict[str, Any] = {
        "$CURRENT_USER": context.user_id,
        "$CURRENT_ROLE": context.role_id,
        "$CURRENT_ROLES": list(context.roles),
        "$CURRENT_POLICIES": list(context.policies),
    }
    return values[text]


def is_variable(value: Any) -> bool:
    """Whether `value` is a dynamic variable; a malformed or unsupported one (`$NOW(x)`,
    `$CURRENT_USER.role`) raises QueryError."""
    if not isinstance(value, str) or not value.startswith("$"):
        return False
    if value in _VARIABLES:
        return True
    if _VARIABLE_PATH.match(value):
        raise QueryError(f'Dynamic variables with a field path ("{value}") are not supported.')
    if value.startswith("$NOW("):
        _adjustment(value)
        return True
    return False


def _adjustment(text: str) -> tuple[int, str]:
    """The signed amount and unit of `$NOW(<adjustment>)`; days when no unit is given."""
    match = _NOW_ADJUSTMENT.fullmatch(text)
    unit = _UNITS.get(match.group(3).lower()) if match else None
    if match is None or unit is None:
        raise QueryError(f'Invalid dynamic variable "{text}": use e.g. $NOW(-1 year).')
    return int(match.group(2)) * (-1 if match.group(1) == "-" else 1), unit


def _adjusted(now: datetime, amount: int, unit: str, text: str) -> datetime:
    try:
        if unit in ("mo", "y"):
            return _add_months(now, amount * (12 if unit == "y" else 1))
        return now + amount * _DURATIONS[unit]
    except (OverflowError, ValueError) as exc:
        raise QueryError(f'"{text}" is out of the range of dates.') from exc


def _add_months(moment: datetime, months: int) -> datetime:
    """Calendar months later (or earlier); a day past the month's end becomes its last day."""
    year, month_index = divmod(moment.year * 12 + moment.month - 1 + months, 12)
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    day = min(moment.day, calendar.monthrange(year, month_index + 1)[1])
    return moment.replace(year=year, month=month_index + 1, day=day)
