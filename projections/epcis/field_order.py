"""A page of events ordered by an extension field (`orderBy=<field>`), read by walking the
field's value indexes rather than by ordering every matching event.

The standard orders by a field of type Int, Float, Time or String, strings by code point.
A field's value is a number or an instant where it reads as one, else its text. An
event's key is its least number or instant; failing any, its least text; failing that it
has none. Ascending: numbers and instants (an instant is its µs since 1970), then texts;
descending the reverse; events without a key last either way (the standard lets them be
anywhere). Ties keep log order in the direction asked.

A page is read in stages, one per kind of key, each a walk of the field's values in order
(numbers and instants merged) stopping after one page, and a later stage is read only
when the earlier ones did not fill the page: the events without a key, which only a walk
of every selected event finds, are looked for only once the keys run out. A value counts
only for an event with no key that sorts before it (look-ups by position), so each event
is listed once, at its key; keyset cursors resume the walk where it stopped.
"""

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from infrastructure.sql_conditions import in_list

#: The order key of an event without the field ordered by: below every real value.
NO_VALUE = -1e300

#: The kinds of key: none, a number or instant, a text.
NONE, NUMBER, TEXT = 0, 1, 2
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
    if kind == TEXT and text is not None:
        return text
    if kind == NUMBER and number is not None:
        return float(number)
    return NO_VALUE


def key_kind(key: int | float | str) -> int:
    """The kind of a sort key: NONE, NUMBER or TEXT."""
    if isinstance(key, str):
        return TEXT
    return NONE if key == NO_VALUE else NUMBER


def _instant_bound(key: float, descending: bool) -> int:
    """A whole instant the walk of instants may start from for a key of any kind (a number
    key may fall between two instants), kept in the column's range."""
    bound = math.ceil(key) if descending else math.floor(key)
    return max(_BIGINT[0], min(_BIGINT[1], bound))


def field_order_stages(
    fields: Sequence[int],
    where: Sequence[str],
    where_params: Sequence[Any],
    limit: int,
    descending: bool,
    after: tuple[int | float | str, int] | None,
    log_join: str,
    *,
    kinds: frozenset[int] = frozenset({NUMBER, TEXT}),
) -> Iterator[tuple[str, list[Any]]]:
    """The SQL and parameters of each stage of a page, in page order, each built when
    the one before it has been read (see the module's docstring): each reads up to
    `limit` rows `(position, kind, number, text, state)` of one kind of key (see
    `row_sort_key`; `log_join` joins each event's log entry as `s`, see
    `stored_documents`). The page is the first `limit` rows of the stages in turn.

    `fields` are the term numbers of the field's names (`terms.FIELD`); `where` are
    conditions on the event row `e`, with their parameters; `after` is the
    `(sort_key, position)` of the last event of the previous page; `kinds` are those of
    `NUMBER` and `TEXT` some event holds a value of (a walk of the other finds nothing).
    """
    # Which kinds are still to come after the cursor, in the order asked.
    at = key_kind(after[0]) if after is not None else None
    order = [TEXT, NUMBER, NONE] if descending else [NUMBER, TEXT, NONE]
    left = order if at is None else order[order.index(at) :]
    stage = _Stage(fields, where, where_params, limit, descending, after)
    for kind in left:
        if kind != NONE and kind not in kinds:
            continue
        arms, params = stage.arms(kind, resuming=kind == at)
        if arms:  # no walks of values when no event holds the field
            yield stage.sql(arms, params, log_join)


@dataclass(frozen=True)
class _Stage:
    """Builds the walks of one kind of key for a page."""

    fields: Sequence[int]
    where: Sequence[str]
    where_params: Sequence[Any]
    limit: int
    descending: bool
    after: tuple[int | float | str, int] | None

    @property
    def event_where(self) -> str:
        return " AND ".join(self.where)

    @property
    def direction(self) -> str:
        return "DESC" if self.descending else "ASC"

    @property
    def cmp(self) -> str:
        return "<" if self.descending else ">"

    def has_value(self, params: list[Any], position: str, condition: str) -> str:
        """Whether the event at `position` has a value of the field that meets `condition`."""
        return (
            f"EXISTS (SELECT 1 FROM epcis_event_fields s"
            f" WHERE s.position = {position}"
            f" AND {in_list('s.field', self.fields, params)} AND {condition})"
        )

    def resume(
        self, params: list[Any], conditions: list[str], column: str, key: str, bound: Any
    ) -> None:
        """Resume the walk of the cursor's kind after it."""
        assert self.after is not None
        value, position = self.after
        # The plain bound lets the index start at the cursor; the OR alone would not.
        conditions.append(f"{column} {self.cmp}= ?")
        conditions.append(f"({key} {self.cmp} ? OR ({key} = ? AND o.position {self.cmp} ?))")
        params.extend((bound, value, value, position))

    def walk(self, params: list[Any], conditions: list[str], select: str, key: str) -> str:
        """One walk of the field's values in `key` order, for the events `where` selects."""
        conditions.append(self.event_where)
        params.extend(self.where_params)
        params.append(self.limit)
        return (
            f"SELECT * FROM (SELECT DISTINCT o.position, {select}"
            " FROM epcis_event_fields o JOIN epcis_events e ON e.position = o.position"
            f" WHERE {' AND '.join(conditions)}"
            f" ORDER BY {key} {self.direction}, o.position {self.direction} LIMIT ?) w"
        )

    def arms(self, kind: int, *, resuming: bool) -> tuple[list[str], list[Any]]:
        """The walks of one kind of key, with their parameters."""
        if kind == NUMBER:
            return self._numbers(resuming)
        if kind == TEXT:
            return self._texts(resuming)
        return self._keyless(resuming)

    def _numbers(self, resuming: bool) -> tuple[list[str], list[Any]]:
        arms: list[str] = []
        params: list[Any] = []
        for field in self.fields:
            for column, key in (("o.number_value", "o.number_value"), ("o.time_value", _INSTANT)):
                params.append(field)
                conditions = ["o.field = ?", f"{column} IS NOT NULL"]
                if column == "o.time_value":
                    conditions.append("o.number_value IS NULL")
                if resuming and self.after is not None:
                    value = float(self.after[0])
                    bound = value if key == column else _instant_bound(value, self.descending)
                    self.resume(params, conditions, column, key, bound)
                smaller = self.has_value(params, "o.position", f"{_NUMERIC} < {key}")
                conditions.append(f"NOT {smaller}")
                arms.append(
                    self.walk(
                        params,
                        conditions,
                        f"{NUMBER} AS kind, {key} AS number, {_NULL_TEXT} AS text",
                        key,
                    )
                )
        return arms, params

    def _texts(self, resuming: bool) -> tuple[list[str], list[Any]]:
        arms: list[str] = []
        params: list[Any] = []
        for field in self.fields:
            params.append(field)
            conditions = ["o.field = ?", "o.text_value IS NOT NULL"]
            conditions.append(_text_only("o"))
            if resuming and self.after is not None:
                self.resume(params, conditions, "o.text_value", "o.text_value", self.after[0])
            numeric = self.has_value(params, "o.position", f"NOT ({_text_only('s')})")
            smaller = self.has_value(
                params, "o.position", f"{_text_only('s')} AND s.text_value < o.text_value"
            )
            conditions.extend((f"NOT {numeric}", f"NOT {smaller}"))
            arms.append(
                self.walk(
                    params,
                    conditions,
                    f"{TEXT} AS kind, {_NULL_NUMBER} AS number, o.text_value AS text",
                    "o.text_value",
                )
            )
        return arms, params

    def _keyless(self, resuming: bool) -> tuple[list[str], list[Any]]:
        params: list[Any] = []
        any_value = self.has_value(
            params, "e.position", f"NOT ({_text_only('s')} AND s.text_value IS NULL)"
        )
        conditions = [f"NOT {any_value}"]
        if resuming and self.after is not None:
            conditions.append(f"e.position {self.cmp} ?")
            params.append(self.after[1])
        conditions.append(self.event_where)
        params.extend(self.where_params)
        params.append(self.limit)
        return [
            f"SELECT * FROM (SELECT e.position, {NONE} AS kind, {_NULL_NUMBER} AS number,"
            f" {_NULL_TEXT} AS text FROM epcis_events e WHERE {' AND '.join(conditions)}"
            f" ORDER BY e.position {self.direction} LIMIT ?) n"
        ], params

    def sql(self, arms: list[str], params: list[Any], log_join: str) -> tuple[str, list[Any]]:
        """One stage's statement: its walks merged, cut to a page, with each event's
        log entry."""
        direction = self.direction
        page = (
            "SELECT DISTINCT u.position, u.kind, u.number, u.text"
            f" FROM ({' UNION ALL '.join(arms)}) u ORDER BY"
            f" u.number {direction}, u.text {direction}, u.position {direction} LIMIT ?"
        )
        sql = (
            "SELECT p.position, p.kind, p.number, p.text, s.state"
            f" FROM ({page}) p JOIN epcis_events e ON e.position = p.position{log_join}"
            f" ORDER BY p.number {direction}, p.text {direction}, p.position {direction}"
        )
        return sql, [*params, self.limit]


#: A query selecting at most this many events has its page ordered by each selected
#: event's key, read by position and sorted here ("driven"); one selecting more walks the
#: field's values in order (`field_order_stages`). A walk stops after a page when the
#: values it meets are mostly selected, but with a selective filter PostgreSQL hashes
#: every value of the field to find the few selected (one carrier in 1,000,000 events:
#: 4,693 events, the field's 240,000 values). A large selection of a field of numbers
#: walks them itself first (walked_keys.py).
DRIVEN_LIMIT = 10_000


def driven_keys_sql(positions_condition: str, fields: Sequence[int], params: list[Any]) -> str:
    """The field's rows `(position, number or instant, text)` of the events that
    `positions_condition` (on `s.position`) names, a text only where the row has no number
    or instant; appends the fields' parameters."""
    # The unary plus keeps planners on the position index: SQLite, without statistics,
    # would rather walk every value of the field.
    return (
        f"SELECT s.position, {_NUMERIC}, s.text_value FROM epcis_event_fields s"
        f" WHERE {positions_condition} AND {in_list('+s.field', fields, params)}"
        " AND (s.number_value IS NOT NULL OR s.time_value IS NOT NULL"
        " OR s.text_value IS NOT NULL)"
    )


def least_values(
    rows: Sequence[tuple[int, float | None, str | None]],
) -> tuple[dict[int, float], dict[int, str]]:
    """Each event's least number (or instant) and least text, of its field's `rows`
    (`driven_keys_sql`)."""
    numbers: dict[int, float] = {}
    texts: dict[int, str] = {}
    for position, number, text in rows:
        if number is not None:
            number = float(number)
            if position not in numbers or number < numbers[position]:
                numbers[position] = number
        elif text is not None and (position not in texts or text < texts[position]):
            texts[position] = text
    return numbers, texts


def driven_page(
    positions: Sequence[int],
    rows: Sequence[tuple[int, float | None, str | None]],
    limit: int,
    descending: bool,
    after: tuple[int | float | str, int] | None,
) -> list[tuple[int, int, float | None, str | None]]:
    """The page `(position, kind, number, text)` of the selected events `positions`,
    given their field's `rows` (`driven_keys_sql`), in the order and after the cursor of
    `field_order_stages`."""
    numbers, texts = least_values(rows)
    keyed: dict[int, list[tuple[Any, int]]] = {NUMBER: [], TEXT: [], NONE: []}
    for position in positions:
        if position in numbers:
            keyed[NUMBER].append((numbers[position], position))
        elif position in texts:
            keyed[TEXT].append((texts[position], position))
        else:
            keyed[NONE].append((0, position))
    order = [TEXT, NUMBER, NONE] if descending else [NUMBER, TEXT, NONE]
    at = key_kind(after[0]) if after is not None else None
    page: list[tuple[int, int, float | None, str | None]] = []
    for kind in order if at is None else order[order.index(at) :]:
        group = sorted(keyed[kind], reverse=descending)
        if kind == at and after is not None:
            mark = (0 if kind == NONE else after[0], after[1])
            group = [k for k in group if (k < mark if descending else k > mark)]
        for key, position in group[: limit - len(page)]:
            page.append(
                (
                    position,
                    kind,
                    key if kind == NUMBER else None,
                    key if kind == TEXT else None,
                )
            )
        if len(page) >= limit:
            break
    return page
