"""A page of events ordered by an extension field (`orderBy=<field>`), read by walking the
field's value indexes rather than by ordering every matching event.

The standard orders by a field of type Int, Float, Time or String, strings by code point.
A field's value is a number or an instant where it reads as one, else its text. An
event's key is its least number or instant; failing any, its least text; failing that it
has none. Ascending: events without a key first, then numbers and instants (an instant
is its µs since 1970), then texts; descending the reverse. Ties keep log order in the
direction asked.

The page merges four walks, each stopping after one page: the field's numbers, its
instants and its texts in order, and the events without a key in log order. A value
counts only for an event with no key that sorts before it (look-ups by position), so
each event is listed once, at its key; keyset cursors resume every walk where it stopped.
"""

import math
from collections.abc import Sequence
from typing import Any

from infrastructure.sql_conditions import in_list

#: The order key of an event without the field ordered by: below every real value.
NO_VALUE = -1e300

#: The kinds of key, in ascending order: none, a number or instant, a text.
_NONE, _NUMBER, _TEXT = 0, 1, 2
_BIGINT = (-(2**63), 2**63 - 1)
#: Typed nulls: a union's columns need one type (and, on PostgreSQL, one collation) in
#: every arm, and a bare NULL has neither.
_NULL_NUMBER = "CAST(NULL AS {real})"
_NULL_TEXT = "(SELECT z.text_value FROM epcis_event_fields z WHERE 1 = 0)"
#: The number or instant of a row `s`, whichever it has; the instant of a row `o`.
_NUMERIC = "COALESCE(s.number_value, s.time_value * 1.0)"
_INSTANT = "o.time_value * 1.0"


def _text_only(alias: str) -> str:
    """Whether a row's value is text only, no number or instant."""
    return f"{alias}.number_value IS NULL AND {alias}.time_value IS NULL"


def row_sort_key(kind: int, number: float | None, text: str | None) -> float | str:
    """The key of a row a page read: NO_VALUE, a number or a text."""
    if kind == _TEXT and text is not None:
        return text
    if kind == _NUMBER and number is not None:
        return float(number)
    return NO_VALUE


def _kind(key: int | float | str) -> int:
    if isinstance(key, str):
        return _TEXT
    return _NONE if key == NO_VALUE else _NUMBER


def _instant_bound(key: float, descending: bool) -> int:
    """A whole instant the walk of instants may start from for a key of any kind (a number
    key may fall between two instants), kept in the column's range."""
    bound = math.ceil(key) if descending else math.floor(key)
    return max(_BIGINT[0], min(_BIGINT[1], bound))


def field_order_page(
    names: Sequence[str],
    where: Sequence[str],
    where_params: Sequence[Any],
    limit: int,
    descending: bool,
    after: tuple[int | float | str, int] | None,
    log_join: str,
) -> tuple[str, list[Any]]:
    """The SQL and parameters of a page of
    `(position, kind, number, text, event_id, state)` (see `row_sort_key`; `log_join`
    joins each event's log entry as `s`, see `stored_documents`).

    `where` are conditions on the event row `e`, with their parameters; `after` is the
    `(sort_key, position)` of the last event of the previous page.
    """
    direction = "DESC" if descending else "ASC"
    cmp = "<" if descending else ">"
    arms: list[str] = []
    params: list[Any] = []
    event_where = " AND ".join(where)
    # Which kinds are still to come after the cursor, in the order asked.
    at = _kind(after[0]) if after is not None else None
    order = [_TEXT, _NUMBER, _NONE] if descending else [_NONE, _NUMBER, _TEXT]
    left = order if at is None else order[order.index(at) :]

    def has_value(alias: str, position: str, condition: str) -> str:
        """Whether the event at `position` has a value of the field that meets `condition`."""
        return (
            f"EXISTS (SELECT 1 FROM epcis_event_fields {alias}"
            f" WHERE {alias}.position = {position} AND {alias}.scope = ''"
            f" AND {in_list(f'{alias}.name', names, params)} AND {condition})"
        )

    def resume(conditions: list[str], column: str, key: str, bound: Any) -> None:
        """Resume the walk of the cursor's kind after it."""
        assert after is not None
        value, position = after
        # The plain bound lets the index start at the cursor; the OR alone would not.
        conditions.append(f"{column} {cmp}= ?")
        conditions.append(f"({key} {cmp} ? OR ({key} = ? AND o.position {cmp} ?))")
        params.extend((bound, value, value, position))

    def walk(conditions: list[str], select: str, key: str) -> None:
        """One walk of the field's values in `key` order, for the events `where` selects."""
        conditions.append(event_where)
        params.extend(where_params)
        params.append(limit)
        arms.append(
            f"SELECT * FROM (SELECT DISTINCT o.position, {select}"
            " FROM epcis_event_fields o JOIN epcis_events e ON e.position = o.position"
            f" WHERE {' AND '.join(conditions)}"
            f" ORDER BY {key} {direction}, o.position {direction} LIMIT ?) w"
        )

    for name in names if _NUMBER in left else ():
        for column, key in (("o.number_value", "o.number_value"), ("o.time_value", _INSTANT)):
            params.append(name)
            conditions = ["o.name = ?", "o.scope = ''", f"{column} IS NOT NULL"]
            if column == "o.time_value":
                conditions.append("o.number_value IS NULL")
            if at == _NUMBER:
                value = float(after[0]) if after is not None else 0.0
                bound = value if key == column else _instant_bound(value, descending)
                resume(conditions, column, key, bound)
            smaller = has_value("s", "o.position", f"{_NUMERIC} < {key}")
            conditions.append(f"NOT {smaller}")
            walk(conditions, f"{_NUMBER} AS kind, {key} AS number, {_NULL_TEXT} AS text", key)
    for name in names if _TEXT in left else ():
        params.append(name)
        conditions = ["o.name = ?", "o.scope = ''", "o.text_value IS NOT NULL", _text_only("o")]
        if at == _TEXT and after is not None:
            resume(conditions, "o.text_value", "o.text_value", after[0])
        numeric = has_value("s", "o.position", f"NOT ({_text_only('s')})")
        smaller = has_value("s", "o.position", f"{_text_only('s')} AND s.text_value < o.text_value")
        conditions.extend((f"NOT {numeric}", f"NOT {smaller}"))
        walk(
            conditions,
            f"{_TEXT} AS kind, {_NULL_NUMBER} AS number, o.text_value AS text",
            "o.text_value",
        )
    if _NONE in left:
        any_value = has_value(
            "s",
            "e.position",
            f"NOT ({_text_only('s')} AND s.text_value IS NULL)",
        )
        conditions = [f"NOT {any_value}"]
        if at == _NONE and after is not None:
            conditions.append(f"e.position {cmp} ?")
            params.append(after[1])
        conditions.append(event_where)
        params.extend(where_params)
        params.append(limit)
        arms.append(
            f"SELECT * FROM (SELECT e.position, {_NONE} AS kind, {_NULL_NUMBER} AS number,"
            f" {_NULL_TEXT} AS text FROM epcis_events e WHERE {' AND '.join(conditions)}"
            f" ORDER BY e.position {direction} LIMIT ?) n"
        )
    params.append(limit)
    page = (
        "SELECT DISTINCT u.position, u.kind, u.number, u.text"
        f" FROM ({' UNION ALL '.join(arms)}) u ORDER BY u.kind {direction},"
        f" u.number {direction}, u.text {direction}, u.position {direction} LIMIT ?"
    )
    sql = (
        "SELECT p.position, p.kind, p.number, p.text, e.event_id, s.state"
        f" FROM ({page}) p JOIN epcis_events e ON e.position = p.position{log_join}"
        f" ORDER BY p.kind {direction}, p.number {direction}, p.text {direction},"
        f" p.position {direction}"
    )
    return sql, params
