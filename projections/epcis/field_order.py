"""A page of events ordered by an extension field's number or instant (`orderBy=<field>`),
read by walking the field's value index rather than by ordering every matching event.

An event's key is the least value its field has (a list field has several), and events
without a number or instant there sort below every value: first ascending, last
descending. The page is the merge of three walks, each stopping after one page: the
field's numbers in order, its instants in order, and the events without a value in log
order. A value counts only if its event has no smaller one (a look-up by position), so
each event appears once, at its key; keyset cursors resume every walk where it stopped.
"""

import math
from collections.abc import Sequence
from typing import Any

from infrastructure.database import in_list

#: The order key of an event without the field ordered by: below every real value.
NO_VALUE = -1e300

_BIGINT = (-(2**63), 2**63 - 1)


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
    after: tuple[int | float, int] | None,
) -> tuple[str, list[Any]]:
    """The SQL and parameters of a page of `(position, sort_key, document, namespaces)`.

    `where` are conditions on the event row `e`, with their parameters; `after` is the
    `(sort_key, position)` of the last event of the previous page.
    """
    direction = "DESC" if descending else "ASC"
    cmp = "<" if descending else ">"
    arms: list[str] = []
    params: list[Any] = []
    event_where = " AND ".join(where)

    def has_names(alias: str) -> str:
        return in_list(f"{alias}.name", names, params)

    def walk(kind: str, name: str) -> None:
        """The field's numbers (or instants) under one name, in order, least per event."""
        column = "o.number_value" if kind == "number" else "o.time_value"
        key = column if kind == "number" else "o.time_value * 1.0"
        conditions = ["o.name = ?", "o.scope = ''", f"{column} IS NOT NULL"]
        params.append(name)
        if kind == "instant":
            conditions.append("o.number_value IS NULL")
        if after is not None:
            sort_key, position = after
            # The plain bound lets the index start at the cursor; the OR alone would not.
            bound = sort_key if kind == "number" else _instant_bound(sort_key, descending)
            conditions.append(f"{column} {cmp}= ?")
            conditions.append(f"({key} {cmp} ? OR ({key} = ? AND o.position {cmp} ?))")
            params.extend((bound, sort_key, sort_key, position))
        conditions.append(
            "NOT EXISTS (SELECT 1 FROM epcis_event_fields s WHERE s.position = o.position"
            f" AND s.scope = '' AND {has_names('s')}"
            f" AND COALESCE(s.number_value, s.time_value * 1.0) < {key})"
        )
        conditions.append(event_where)
        params.extend(where_params)
        params.append(limit)
        arms.append(
            f"SELECT * FROM (SELECT DISTINCT o.position, {key} AS sort_key"
            " FROM epcis_event_fields o JOIN epcis_events e ON e.position = o.position"
            f" WHERE {' AND '.join(conditions)}"
            f" ORDER BY sort_key {direction}, o.position {direction} LIMIT ?) w"
        )

    def without_value() -> None:
        """The events without a number or instant in the field, in log order."""
        params.append(NO_VALUE)
        conditions = [
            "NOT EXISTS (SELECT 1 FROM epcis_event_fields s WHERE s.position = e.position"
            f" AND s.scope = '' AND {has_names('s')}"
            " AND (s.number_value IS NOT NULL OR s.time_value IS NOT NULL))"
        ]
        if after is not None and after[0] == NO_VALUE:
            conditions.append(f"e.position {cmp} ?")
            params.append(after[1])
        conditions.append(event_where)
        params.extend(where_params)
        params.append(limit)
        arms.append(
            "SELECT * FROM (SELECT e.position, ? AS sort_key FROM epcis_events e"
            f" WHERE {' AND '.join(conditions)} ORDER BY e.position {direction} LIMIT ?) n"
        )

    # Past the events without a value (descending, they come last) no value is left.
    if not (descending and after is not None and after[0] == NO_VALUE):
        for name in names:
            walk("number", name)
            walk("instant", name)
    # Ascending, the events without a value come first: once past them, none is left.
    if descending or after is None or after[0] == NO_VALUE:
        without_value()
    params.append(limit)
    page = (
        f"SELECT DISTINCT u.position, u.sort_key FROM ({' UNION ALL '.join(arms)}) u"
        f" ORDER BY u.sort_key {direction}, u.position {direction} LIMIT ?"
    )
    sql = (
        "SELECT p.position, p.sort_key, e.document, e.namespaces"
        f" FROM ({page}) p JOIN epcis_events e ON e.position = p.position"
        f" ORDER BY p.sort_key {direction}, p.position {direction}"
    )
    return sql, params
