"""A page ordered by a field's numbers for a large selection, read by walking the field's
number index in page order instead of reading every selected event's key.

`field_order.DRIVEN_LIMIT` lets a query selecting up to 10,000 events read each one's
key by position and sort them here: one index probe an event (one carrier in 1,000,000
events: 4,789 probes, ~40 ms). When the selection holds more than `WALK_FROM` events, a
page is found sooner by walking the field's values in order and keeping those of
selected events: one carrier in fifty needs ~1,500 index entries for a page of 30.
PostgreSQL's own plan for that walk hashes every value of the field first, as it
misjudges how many match.

An event's key is its least value, which the value the walk meets first need not be (a
descending walk meets its largest). Most events hold one value of a field, so the walk
keys each event by the value it met first, then asks the page's events once for their
least values; if one holds a lesser, the walk is redone asking each chunk's events met.

Each chunk asks the selection's conditions which of the events met it holds: of the index
tables alone where the conditions allow (the carrier's own index, probed by position),
else of the event rows. The selection itself is never read whole (one carrier at
10,000,000 events has ~48,000).

An event met is final once its key sorts at or before the walk's last row: every event
not met yet has all its values after that row. Where the walk cannot tell a page for
certain (a field with texts or instants, a cursor past the numbers, the numbers running
out before the page is full, or a walk that would be longer than `WALK_LIMIT` entries at
the rate it meets selected events), it gives up and the caller reads every selected
event's key, or the stages answer.
"""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from infrastructure.connection import Connection
from infrastructure.sql_conditions import any_of, number_rows
from projections.epcis.field_order import NUMBER, driven_keys_sql, key_kind, least_values

#: Selections of at most this many events read every event's key: the probes cost less.
WALK_FROM = 1_000
#: Index entries the walk reads at a time.
CHUNK = 500
#: Index entries a walk reads before it gives up, and the most it expects to need when it
#: judges from the events met so far: past it, reading each selected event's key (or the
#: stages' plan, which hashes every value of the field) costs less.
WALK_LIMIT = 20_000

PageRows = list[tuple[int, int, float | None, str | None]]
#: Which of some positions (met by the walk) are of selected events.
Among = Callable[[list[int]], Iterable[int]]


def among_selection(
    conn: Connection,
    where: Sequence[str],
    params: Sequence[Any],
    indexed: tuple[str, list[Any]] | None,
) -> Among:
    """The selection asked of the positions met: of the index tables alone where its
    conditions allow (`indexed`, from `position_pages.positions_among`), else its
    conditions `where` on `epcis_events e`."""

    def among(positions: list[int]) -> Iterable[int]:
        if indexed is not None:
            # One probe of the conditions' own index for each position met (the fence: not
            # a join reading every selected event), and no event row read.
            asked: list[Any] = []
            sql = (
                f"SELECT v.value FROM {number_rows(conn.dialect, positions, asked)}"
                f" WHERE EXISTS (SELECT 1 {indexed[0]} AND d.position = v.value {{fence}})"
            )
            asked.extend(indexed[1])
        else:
            asked = list(params)
            conditions = [*where, any_of(conn.dialect, "e.position", positions, asked)]
            sql = f"SELECT e.position FROM epcis_events e WHERE {' AND '.join(conditions)}"
        return {int(r[0]) for r in conn.fetchall(sql, asked)}

    return among


def walked_page(
    conn: Connection,
    fields: Sequence[int],
    texts: bool,
    among: Among,
    limit: int,
    descending: bool,
    cursor: tuple[int | float | str, int] | None,
) -> PageRows | None:
    """The page `(position, kind, number, text)` of the events `among` tells selected,
    ordered by the field `fields` name (`texts`: some event holds a text-only value of
    it), after the `cursor` of `field_order`; None where the walk cannot tell it (module
    docstring)."""
    if texts or len(fields) != 1:
        return None
    if cursor is not None and key_kind(cursor[0]) != NUMBER:
        return None
    field = fields[0]
    if _has_instants(conn, field):
        return None
    after = None if cursor is None else (float(cursor[0]), cursor[1])
    among = _remembered(among)
    page = _walk(conn, field, among, limit, descending, after, met_first=True)
    if page is None:
        return None  # with the true keys it would give up too: they sort no sooner
    least = _least_numbers(conn, field, [p for _, p in page])
    if any(least.get(p) != k for k, p in page):
        # An event of the page holds a lesser value than the walk met first; the second
        # walk meets the same events, whose selection is not asked again.
        page = _walk(conn, field, among, limit, descending, after, met_first=False)
    return None if page is None else [(p, NUMBER, k, None) for k, p in page]


def _walk(
    conn: Connection,
    field: int,
    among: Among,
    limit: int,
    descending: bool,
    after: tuple[float, int] | None,
    met_first: bool,
) -> list[tuple[float, int]] | None:
    """The page's `(key, position)` pairs, keyed by the value the walk met first for each
    event (`met_first`: mostly its only value, so one question for the whole page) or by
    its least value, asked each chunk; None where the walk cannot tell the page."""
    keys: dict[int, float] = {}
    passed: set[int] = set()
    bound = after
    walked = 0
    while walked < WALK_LIMIT:
        rows = conn.fetchall(*_walk_sql(field, bound, descending))
        walked += len(rows)
        unknown = sorted({int(p) for p, _ in rows} - keys.keys() - passed)
        met = set(among(unknown)) if unknown else set()
        passed.update(unknown)
        if met and met_first:
            for position, number in rows:
                if int(position) in met:
                    keys.setdefault(int(position), float(number))
        elif met:
            keys.update(_least_numbers(conn, field, sorted(met)))
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
            return final[:limit]
        if walked + (limit - len(final)) * walked / max(len(keys), 0.5) > WALK_LIMIT:
            return None  # too few selected events met so far for the rest of the page
    return None


def _remembered(among: Among) -> Among:
    """`among`, asked only of the positions it was not asked of before."""
    held: dict[int, bool] = {}

    def remembered(positions: list[int]) -> Iterable[int]:
        new = [p for p in positions if p not in held]
        selected = set(among(new)) if new else set()
        held.update((p, p in selected) for p in new)
        return [p for p in positions if held[p]]

    return remembered


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
