"""A page ordered by a field's numbers for a large selection, read by walking the field's
number index in page order instead of reading every selected event's key.

`field_order.DRIVEN_LIMIT` lets a query selecting up to 10,000 events read each one's
key by position and sort them here: one index probe an event (one carrier in 1,000,000
events: 4,789 probes, ~40 ms). When the selection is large, a page is found sooner by
walking the field's values in order and keeping those of selected events: one carrier
in fifty needs ~1,500 index entries for a page of 30, and a probe only for each event met
(its key is its least value, which the value met need not be). PostgreSQL's own plan
for that walk hashes every value of the field first, as it misjudges how many match.

A selection too large to read whole (over `DRIVEN_LIMIT` events: one carrier at
10,000,000 events has ~48,000) is asked, for each chunk, which of the events met it
holds: the walk is the same, and the plan it saves hashed every value of the field.

An event met is final once its key sorts at or before the walk's last row: every event
not met yet has all its values after that row. Where the walk cannot tell a page for
certain (a field with texts or instants, a cursor past the numbers, the numbers running
out before the page is full, or a walk longer than the probes would be), it gives up and
the caller reads every selected event's key.
"""

from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from infrastructure.database import Connection
from infrastructure.sql_conditions import any_of
from projections.epcis.field_order import NUMBER, driven_keys_sql, key_kind, least_values

#: Selections smaller than this read every event's key: the probes cost less.
WALK_FROM = 1_000
#: Index entries the walk reads at a time.
CHUNK = 500
#: The walk gives up after this many entries per selected event: an event's key read by
#: position costs about as much as reading ten entries in order.
ROWS_PER_SELECTED = 10
#: Entries a walk over a selection too large to read whole (`DRIVEN_LIMIT`) reads before
#: it gives up: the plan it saves hashes every value of the field (~500 ms at 10M).
LARGE_WALK = 20_000

PageRows = list[tuple[int, int, float | None, str | None]]
#: Which of some positions (met by the walk) are of selected events.
Among = Callable[[list[int]], Iterable[int]]


def among_positions(selected: Collection[int]) -> tuple[Among, int]:
    """The selection read whole, and how many entries a walk over it may read (none
    under `WALK_FROM` selected events: reading each one's key costs less)."""
    chosen = frozenset(selected)
    budget = ROWS_PER_SELECTED * len(chosen) if len(chosen) >= WALK_FROM else 0
    return chosen.intersection, budget


def among_selection(conn: Connection, where: Sequence[str], params: Sequence[Any]) -> Among:
    """The selection's conditions on `epcis_events e` asked of the positions met: for a
    selection too large to read whole."""

    def among(positions: list[int]) -> Iterable[int]:
        asked = list(params)
        condition = any_of(conn.dialect, "e.position", positions, asked)
        sql = f"SELECT e.position FROM epcis_events e WHERE {' AND '.join(where)} AND {condition}"
        return [int(r[0]) for r in conn.fetchall(sql, asked)]

    return among


def walked_page(
    conn: Connection,
    fields: Sequence[int],
    texts: bool,
    selected: tuple[Among, int],
    limit: int,
    descending: bool,
    cursor: tuple[int | float | str, int] | None,
) -> PageRows | None:
    """The page `(position, kind, number, text)` of the `selected` events (`among_*`: which
    are, and how many entries to read at most) ordered by the field `fields` name
    (`texts`: some event holds a text-only value of it), after the `cursor` of
    `field_order`; None where the walk cannot tell it (module docstring)."""
    among, budget = selected
    if budget <= 0 or texts or len(fields) != 1:
        return None
    if cursor is not None and key_kind(cursor[0]) != NUMBER:
        return None
    field = fields[0]
    if _has_instants(conn, field):
        return None
    after = None if cursor is None else (float(cursor[0]), cursor[1])
    keys: dict[int, float] = {}
    passed: set[int] = set()
    bound = after
    walked = 0
    while walked < budget:
        rows = conn.fetchall(*_walk_sql(field, bound, descending))
        walked += len(rows)
        unknown = sorted({int(p) for p, _ in rows} - keys.keys() - passed)
        met = sorted(among(unknown)) if unknown else []
        passed.update(unknown)
        if met:
            keys.update(_least_numbers(conn, field, met))
        if rows:
            bound = (float(rows[-1][1]), int(rows[-1][0]))
        eligible = [
            (k, p) for p, k in keys.items() if after is None or _before(after, (k, p), descending)
        ]
        if len(rows) < CHUNK:  # every number after the cursor was walked
            if len(eligible) < limit:
                return None  # events without a number come next: the probes tell them
            final = eligible
        else:
            assert bound is not None
            final = [c for c in eligible if not _before(bound, c, descending)]
        if len(final) >= limit or len(rows) < CHUNK:
            final.sort(reverse=descending)
            return [(p, NUMBER, k, None) for k, p in final[:limit]]
    return None


def _before(first: tuple[float, int], then: tuple[float, int], descending: bool) -> bool:
    """Whether `first` sorts strictly before `then` in page order."""
    return then < first if descending else then > first


def _walk_sql(
    field: int, bound: tuple[float, int] | None, descending: bool
) -> tuple[str, list[Any]]:
    cmp, direction = ("<", "DESC") if descending else (">", "ASC")
    where = ["s.field = ?", "s.number_value IS NOT NULL"]
    params: list[Any] = [field]
    if bound is not None:
        # The plain bound lets the index start there; the OR alone would not.
        where.append(f"s.number_value {cmp}= ?")
        where.append(f"(s.number_value {cmp} ? OR (s.number_value = ? AND s.position {cmp} ?))")
        params.extend((bound[0], bound[0], bound[0], bound[1]))
    sql = (
        f"SELECT s.position, s.number_value FROM epcis_event_fields s"
        f" WHERE {' AND '.join(where)}"
        f" ORDER BY s.number_value {direction}, s.position {direction} LIMIT ?"
    )
    return sql, [*params, CHUNK]


def _least_numbers(conn: Connection, field: int, positions: list[int]) -> dict[int, float]:
    params: list[Any] = []
    condition = any_of(conn.dialect, "s.position", positions, params)
    rows = conn.fetchall(driven_keys_sql(condition, [field], params), params)
    return least_values([(int(p), n, t) for p, n, t in rows])[0]


def _has_instants(conn: Connection, field: int) -> bool:
    """Whether some event holds an instant of `field` (its time index, one probe)."""
    return bool(
        conn.fetchall(
            "SELECT 1 FROM epcis_event_fields s WHERE s.field = ? AND s.time_value IS NOT NULL"
            " AND s.number_value IS NULL LIMIT 1",
            [field],
        )
    )
