"""Answers EPCIS event queries from the query tables, one keyset page at a time."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.epcis.event_query import EventQuery
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.sql_conditions import any_of, in_list
from projections.epcis.event_conditions import build_where, named_terms, scope_condition
from projections.epcis.field_order import (
    DRIVEN_LIMIT,
    NUMBER,
    TEXT,
    driven_keys_sql,
    driven_page,
    field_order_stages,
    row_sort_key,
)
from projections.epcis.position_pages import (
    ordered_page,
    positions_among,
    positions_first,
    selected_positions,
    split_conditions,
)
from projections.epcis.stored_documents import log_join, stored_document
from projections.epcis.terms import (
    FIELD,
    FIELD_NUMBERS,
    FIELD_TEXTS,
    TermIds,
)
from projections.epcis.walked_keys import WALK_FROM, among_selection, walked_page

_ORDER_COLUMN = {
    "position": "e.position",
    "eventTime": "e.event_time",
    "recordTime": "e.record_time",
}


@dataclass(frozen=True)
class PageRow:
    """One event of a page: its stored JSON and the keys that place it in the order."""

    position: int
    sort_key: int | float | str
    document: str
    namespaces: str | None


#: The newest log position the query tables hold: a page's snapshot.
_NEWEST = "SELECT MAX(position) FROM epcis_events"


def _page_rows(query: EventQuery, rows: list[Any]) -> list[PageRow]:
    """A page's rows as read, each with its event decoded from the log entry."""
    if query.order_by == "field":
        return [
            PageRow(
                int(r[0]),
                row_sort_key(r[1], r[2], r[3]),
                *stored_document(r[4]),
            )
            for r in rows
        ]
    return [PageRow(int(r[0]), _sort_key(r[1]), *stored_document(r[2])) for r in rows]


def _sort_key(value: Any) -> int | float:
    # Times and positions are whole numbers; an extension field's order key is a float.
    return value if isinstance(value, float) else int(value)


@dataclass(frozen=True)
class _Selection:
    """What a page selects: conditions on `epcis_events e` below `snapshot` with their
    parameters, and, without a scope, each condition with its own (`split_conditions`)."""

    where: list[str]
    params: list[Any]
    snapshot: int
    conditions: list[tuple[str, list[Any]]] | None

    @classmethod
    def of(
        cls, terms: TermIds, query: EventQuery, snapshot: int, scope: Sequence[EventQuery] | None
    ) -> "_Selection":
        params: list[Any] = [snapshot]
        # The snapshot bound never narrows much; the unary plus keeps planners from
        # walking the primary key for it instead of using a selective index.
        where = ["+e.position <= ?", *build_where(terms, query, params)]
        conditions = None
        if scope is None:
            conditions = split_conditions(where[1:], params[1:])
        else:
            where.append(scope_condition(terms, scope, params))
        return cls(where, params, snapshot, conditions)

    @property
    def everything(self) -> bool:
        """Whether every event below the snapshot is selected."""
        return len(self.where) == 1


class EpcisEventReader:
    """Reads pages of matching events in a stable order, resuming after a keyset cursor."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def page(
        self,
        query: EventQuery,
        *,
        limit: int,
        snapshot: int,
        after: tuple[int | float | str, int] | None = None,
        scope: Sequence[EventQuery] | None = None,
    ) -> list[PageRow]:
        """Up to `limit` events at log positions ≤ `snapshot`, after `(sort_key, position)`,
        that also match one of the `scope` queries (when there is a scope).

        Reading below a fixed snapshot makes paging a consistent view: events captured
        while a client pages do not shift pages, so nothing is skipped or repeated.
        """
        with self._db.reading(transaction=False) as conn:
            rows = self._rows(conn, query, limit, snapshot, after, scope)
        return _page_rows(query, rows)

    def snapshot_and_page(
        self,
        query: EventQuery,
        *,
        limit: int,
        after: tuple[int | float | str, int] | None = None,
        scope: Sequence[EventQuery] | None = None,
    ) -> tuple[int, list[PageRow]]:
        """`snapshot` and the `page` below it, read on one connection: a query's fixed
        cost is mostly its trips to the database."""
        with self._db.reading(transaction=False) as conn:
            newest, terms = TermIds.read_with(conn, _NEWEST, named_terms([query, *(scope or ())]))
            snapshot = int(newest or 0)
            rows = self._rows(conn, query, limit, snapshot, after, scope, terms)
        return snapshot, _page_rows(query, rows)

    def _rows(
        self,
        conn: Connection,
        query: EventQuery,
        limit: int,
        snapshot: int,
        after: tuple[int | float | str, int] | None,
        scope: Sequence[EventQuery] | None,
        terms: TermIds | None = None,
    ) -> list[Any]:
        terms = terms or TermIds(conn)
        selection = _Selection.of(terms, query, snapshot, scope)
        driven = None
        if query.order_by == "field":
            driven = self._driven_page(conn, terms, query, selection, limit, after)
        rows: list[Any] = driven or []
        # Stages in page order (one for every order but a field's): read until full.
        pages = [] if driven is not None else self._page_sql(terms, query, selection, limit, after)
        for sql, params in pages:
            rows.extend(conn.fetchall(sql, params))
            if len(rows) >= limit:
                break
        return rows[:limit]

    def _driven_page(
        self,
        conn: Connection,
        terms: TermIds,
        query: EventQuery,
        selection: _Selection,
        limit: int,
        after: tuple[int | float | str, int] | None,
    ) -> list[Any] | None:
        """A page ordered by a field: walked along its numbers, or read by each selected
        event's key where the query selects at most `DRIVEN_LIMIT` events; None where
        neither tells it (the stages walk the field's values)."""
        if selection.everything:  # the walk stops after a page
            return None
        held = terms.field_numbers("", query.order_field, (FIELD, FIELD_TEXTS))
        fields = held.get(FIELD, [])
        # A few selected events: their keys are read. More: the page is found sooner along
        # the field's numbers, where the field has only numbers (walked_keys.py), each
        # chunk asking the selection which events met it holds. Where the walk cannot tell
        # the page, a selection of up to DRIVEN_LIMIT events has its keys read, a larger
        # one is left to the stages.
        selected = self._selected(conn, selection, min(WALK_FROM, DRIVEN_LIMIT))
        page = None
        if selected is None:
            indexed = selection.conditions and positions_among(
                selection.conditions, selection.snapshot
            )
            among = among_selection(conn, selection.where, selection.params, indexed or None)
            texts = FIELD_TEXTS in held
            page = walked_page(conn, fields, texts, among, limit, query.descending, after)
            if page is None:
                selected = self._selected(conn, selection, DRIVEN_LIMIT)
                if selected is None:
                    return None
        if page is None:
            assert selected is not None
            key_params: list[Any] = []
            positions = any_of(self._db.dialect, "s.position", selected, key_params)
            rows = conn.fetchall(driven_keys_sql(positions, fields, key_params), key_params)
            page = driven_page(selected, rows, limit, query.descending, after)
        if not page:
            return []
        found: list[Any] = []
        documents = {
            int(r[0]): r[1]
            for r in conn.fetchall(
                f"SELECT e.position, s.state FROM epcis_events e"
                f"{log_join(self._db.dialect)}"
                f" WHERE {in_list('e.position', [p[0] for p in page], found)}",
                found,
            )
        }
        return [(*row, documents[row[0]]) for row in page]

    @staticmethod
    def _selected(conn: Connection, selection: _Selection, most: int) -> list[int] | None:
        """The positions of the selected events, or None where there are more than `most`
        (from the index tables alone where the conditions allow: no event row read)."""
        planned = selection.conditions and selected_positions(
            selection.conditions, selection.snapshot, most + 1
        )
        sql, params = planned or (
            f"SELECT e.position FROM epcis_events e WHERE {' AND '.join(selection.where)} LIMIT ?",
            [*selection.params, most + 1],
        )
        rows = conn.fetchall(sql, params)
        # Rows, not events (an event may match twice): they stop at the bound.
        return None if len(rows) > most else sorted({int(r[0]) for r in rows})

    def _page_sql(
        self,
        terms: TermIds,
        query: EventQuery,
        selection: _Selection,
        limit: int,
        after: tuple[int | float | str, int] | None,
    ) -> Iterable[tuple[str, list[Any]]]:
        if selection.conditions is not None and query.order_by == "position":
            planned = positions_first(
                selection.conditions,
                selection.snapshot,
                after[1] if after is not None else None,
                limit,
                log_join(self._db.dialect),
            )
            if planned is not None:
                return [planned]
        # Copies: the cursor's conditions are added below.
        where, params = list(selection.where), list(selection.params)
        if query.order_by == "field":
            # The field's numbers, and whether some event holds a number or a text of it.
            held = terms.field_numbers("", query.order_field, (FIELD, FIELD_NUMBERS, FIELD_TEXTS))
            kinds = {
                kind
                for kind, term in ((NUMBER, FIELD_NUMBERS), (TEXT, FIELD_TEXTS))
                if term in held
            }
            return field_order_stages(
                held.get(FIELD, []),
                where,
                params,
                limit,
                query.descending,
                after,
                log_join(self._db.dialect),
                kinds=frozenset(kinds),
            )
        column = _ORDER_COLUMN[query.order_by]
        direction = "DESC" if query.descending else "ASC"
        if after is not None:
            sort_key, position = after
            cmp = "<" if query.descending else ">"
            if query.order_by == "position":
                where.append(f"e.position {cmp} ?")
                params.append(position)
            else:
                where.append(f"({column} {cmp} ? OR ({column} = ? AND e.position {cmp} ?))")
                params.extend((sort_key, sort_key, position))
        order = f"{column} {direction}" + (
            f", e.position {direction}" if query.order_by != "position" else ""
        )
        return [ordered_page(where, params, column, order, limit, log_join(self._db.dialect))]

    def snapshot(self) -> int:
        """The newest log position the query tables hold."""
        with self._db.reading(transaction=False) as conn:
            value = conn.fetchval(_NEWEST)
        return int(value or 0)

    def count_after(
        self,
        query: EventQuery,
        *,
        after: int,
        snapshot: int,
        scope: Sequence[EventQuery] | None = None,
    ) -> int:
        """How many events at log positions after `after` (and ≤ `snapshot`) match."""
        params: list[Any] = [after, snapshot]
        with self._db.reading(transaction=False) as conn:
            terms = TermIds(conn)
            where = ["e.position > ?", "e.position <= ?", *build_where(terms, query, params)]
            if scope is not None:
                where.append(scope_condition(terms, scope, params))
            return int(
                conn.fetchval(
                    f"SELECT COUNT(*) FROM epcis_events e WHERE {' AND '.join(where)}", params
                )
            )

    def position_before_record_time(self, record_time: int) -> int:
        """The log position just before the first event recorded after `record_time`
        (microseconds), or the newest position when there is none: a cursor there
        delivers every event recorded after that time."""
        with self._db.reading(transaction=False) as conn:
            first = conn.fetchval(
                "SELECT MIN(position) FROM epcis_events WHERE record_time > ?", (record_time,)
            )
            if first is not None:
                return int(first) - 1
            return int(conn.fetchval("SELECT COALESCE(MAX(position), 0) FROM epcis_events"))
