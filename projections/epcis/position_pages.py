"""Pages in log order found from index tables alone, before any event row is read.

A query whose every condition is "the event has a row in some index table" (an extension
field, ILMD, sensor data, EPCs …) would otherwise read the event row of every match and
sort them to keep the first page: thousands of random reads at a million events. Here the
first page's positions come from the index tables, in order, and only those events are
read.
"""

from typing import Any

_SEMI = "e.position IN ("

#: Index tables whose conditions select through an index that yields positions cheaply.
#: EPC patterns are left to the general plan: a LIKE the planner misjudges would make it
#: walk a whole table in position order.
_DRIVERS = (
    " FROM epcis_event_fields ",
    " FROM epcis_event_sensor_reports ",
    " FROM epcis_event_sensor_elements ",
    " FROM epcis_event_persistent_dispositions ",
    " FROM epcis_event_corrections ",
)


def split_conditions(sql: list[str], params: list[Any]) -> list[tuple[str, list[Any]]]:
    """Each condition with its own parameters: one per `?` it holds, in order."""
    result = []
    offset = 0
    for condition in sql:
        count = condition.count("?")
        result.append((condition, params[offset : offset + count]))
        offset += count
    return result


def _positions(condition: str) -> str | None:
    """The SELECT of positions a condition `e.position IN (SELECT …)` tests, else None."""
    if not (condition.startswith(_SEMI) and condition.endswith(")")):
        return None
    inner = condition[len(_SEMI) : -1]
    # Only one subquery: the closing parenthesis must be the one the test opened.
    depth = 0
    for char in inner:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return None
    return inner if depth == 0 and inner.startswith("SELECT ") else None


def positions_first(
    conditions: list[tuple[str, list[Any]]],
    snapshot: int,
    after: int | None,
    limit: int,
    log_join: str,
) -> tuple[str, list[Any]] | None:
    """The page's SQL (ordered by log position), or None when some condition needs the
    event row itself (then the caller's plan is the right one). `log_join` joins each
    event's log entry as `s` (see `stored_documents`)."""
    found = _from_index_tables(conditions, snapshot, after)
    if found is None:
        return None
    rows, params = found
    sql = (
        f"SELECT e.position, e.position, s.state FROM epcis_events e{log_join}"
        f" WHERE e.position IN (SELECT DISTINCT d.position {rows} ORDER BY d.position LIMIT ?)"
        " ORDER BY e.position LIMIT ?"
    )
    return sql, [*params, limit, limit]


def selected_positions(
    conditions: list[tuple[str, list[Any]]], snapshot: int, bound: int
) -> tuple[str, list[Any]] | None:
    """The SQL of up to `bound` rows of the positions the conditions select, in no order
    and not told apart (an event may match twice), or None when some condition needs the
    event row itself."""
    found = _from_index_tables(conditions, snapshot, None)
    if found is None:
        return None
    rows, params = found
    # No DISTINCT: it would gather every match before the bound cuts them.
    return f"SELECT d.position {rows} LIMIT ?", [*params, bound]


def positions_among(
    conditions: list[tuple[str, list[Any]]], snapshot: int
) -> tuple[str, list[Any]] | None:
    """`FROM … d WHERE …`: the rows `d` of the positions ≤ `snapshot` the conditions
    select, open for one more condition on `d.position` (`… AND d.position = ?`); None when
    some condition needs the event row."""
    # The snapshot's bound is written as an expression, not as the column, so that the
    # position looked up is the index's key: SQLite (3.40) took the bound for the index's
    # range instead and, for each position asked, read every selected row below the
    # snapshot (500 positions asked of one carrier's 1,440 rows: 148 ms, against 0.7).
    return _from_index_tables(conditions, snapshot, None, bound="+d.position <= ?")


def _from_index_tables(
    conditions: list[tuple[str, list[Any]]],
    snapshot: int,
    after: int | None,
    bound: str = "d.position <= ?",
) -> tuple[str, list[Any]] | None:
    """`FROM … d WHERE …`, the rows `d` of the positions ≤ `snapshot` (`bound`; and >
    `after`) that every condition selects, driven by an index table's; None when there is
    none or some condition needs the event row."""
    selects = [(_positions(sql), params) for sql, params in conditions]
    if not selects or any(select is None for select, _ in selects):
        return None
    drivers = [
        i for i, (select, _) in enumerate(selects) if any(d in str(select) for d in _DRIVERS)
    ]
    if not drivers:
        return None
    driver, driver_params = selects.pop(drivers[0])
    where = [bound]
    params: list[Any] = [*driver_params, snapshot]
    if after is not None:
        where.append("d.position > ?")
        params.append(after)
    for select, select_params in selects:
        where.append(f"d.position IN ({select})")
        params.extend(select_params)
    return f"FROM ({driver}) d WHERE {' AND '.join(where)}", params


def ordered_page(
    where: list[str], params: list[Any], column: str, order: str, limit: int, log_join: str
) -> tuple[str, list[Any]]:
    """The SQL of a page of the events `where` selects in `order` (`column` its key), with
    each one's log entry (`log_join`, as `s`).

    The page's positions come first, then only its rows and entries: where an index holds
    every column the conditions name (a place's or a step's window, a time window), the
    matches are read from it alone, not a table page each (1,100 for an hour at 10M).
    Not behind a subquery (an EPC pattern's LIKE): the planner misjudges it and walks the
    table in position order behind the inner limit (2 -> 254 ms at 10M).
    """
    conditions = " AND ".join(where)
    head = f"SELECT e.position, {column}, s.state FROM epcis_events e{log_join}"
    if "(SELECT " in conditions:
        return f"{head} WHERE {conditions} ORDER BY {order} LIMIT ?", [*params, limit]
    sql = (
        f"{head} WHERE e.position IN (SELECT e.position FROM epcis_events e"
        f" WHERE {conditions} ORDER BY {order} LIMIT ?) ORDER BY {order} LIMIT ?"
    )
    return sql, [*params, limit, limit]
