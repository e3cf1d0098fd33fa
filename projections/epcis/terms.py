"""Vocabulary values interned as small numbers: an event's type, action, business step,
disposition, read point and business location are held in `epcis_events` and its nine
indexes as the number of their text in `epcis_terms`, where each text is kept once; so
are the names of extension and ILMD fields in `epcis_event_fields` (`FIELD`), and the
account that captured an event (`ACCOUNT`).

Keys of a few bytes instead of URIs of 30 to 50 (`https://ref.gs1.org/cbv/BizStep-shipping`)
make each of those indexes about a third of its size. Numbers are given per kind, so a
kind's values are listed in text order from the terms alone, and they are assigned by
the database inside the writer's transaction: a rolled-back capture leaves no number in
use, and a rebuilt table numbers afresh, so what a process remembers of them
(`TermCache`) is confirmed by each transaction that uses it.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from infrastructure.connection import Connection
from infrastructure.pg_arrays import encoded_array
from infrastructure.sql_conditions import any_glob, any_of, in_list
from projections.projection import ProjectionConflict

EVENT_TYPE = 1
ACTION = 2
BIZ_STEP = 3
DISPOSITION = 4
READ_POINT = 5
BIZ_LOCATION = 6
#: An extension or ILMD field's name, with its scope (`field_term`).
FIELD = 7
#: A field some event holds a text of (neither number nor instant), and one some event
#: holds a number or instant of: ordering by a field walks only the kinds it has.
FIELD_TEXTS = 8
FIELD_NUMBERS = 9
#: The account whose user captured the event (multi-tenant installations only).
ACCOUNT = 10

#: The `epcis_events` column that holds each kind's number.
COLUMNS = {
    EVENT_TYPE: "event_type_term",
    ACTION: "action_term",
    BIZ_STEP: "biz_step_term",
    DISPOSITION: "disposition_term",
    READ_POINT: "read_point_term",
    BIZ_LOCATION: "biz_location_term",
    ACCOUNT: "account_term",
}

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS epcis_terms (
        id {id_key},
        kind SMALLINT NOT NULL,
        value {key_text} NOT NULL)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS epcis_terms_value ON epcis_terms (kind, value)",
)

TABLES = ("epcis_terms",)

Term = tuple[int, str]


def field_term(scope: str, name: str) -> str:
    """The term of a field: its scope (`ILMD_`, or empty for a top-level extension) and
    its expanded name, apart by a space, which neither holds."""
    return f"{scope} {name}"


# One statement on PostgreSQL: what is new is inserted, what was there is selected (and
# flagged so). The SELECT does not see rows another transaction committed while this one
# waited on them (same snapshot); those are read again by `term_numbers`.
_INTERN_POSTGRESQL = (
    "WITH wanted (kind, value) AS (SELECT * FROM unnest(?::smallint[], ?::text[])),"
    " added AS (INSERT INTO epcis_terms (kind, value)"
    " SELECT kind, value FROM wanted ORDER BY kind, value"
    " ON CONFLICT (kind, value) DO NOTHING RETURNING id, kind, value)"
    " SELECT id, kind, value, false FROM added UNION ALL"
    " SELECT t.id, t.kind, t.value, true FROM epcis_terms t"
    " JOIN wanted w ON t.kind = w.kind AND t.value = w.value"
)
#: How many of some (number, kind, value) rows `epcis_terms` holds.
_COUNT_POSTGRESQL = (
    "SELECT count(*) FROM epcis_terms t"
    " JOIN unnest(?::bigint[], ?::smallint[], ?::text[]) AS w (id, kind, value)"
    " ON t.id = w.id AND t.kind = w.kind AND t.value = w.value"
)


def term_numbers(conn: Connection, terms: Iterable[Term]) -> dict[Term, int]:
    """The number of each `(kind, value)`, numbering those not seen before."""
    return _interned(conn, terms)[0]


def _interned(conn: Connection, terms: Iterable[Term]) -> tuple[dict[Term, int], set[Term]]:
    """`term_numbers`, and which of the terms were there before (on SQLite, which does
    not tell, all of them)."""
    wanted = sorted(set(terms))
    if not wanted:
        return {}, set()
    if conn.dialect.name == "postgresql":
        kinds = encoded_array([kind for kind, _ in wanted], "smallint")
        values = encoded_array([value for _, value in wanted], "text")
        rows = conn.fetchall(_INTERN_POSTGRESQL, (kinds, values))
        found = _numbered(row[:3] for row in rows)
        there = {(int(row[1]), str(row[2])) for row in rows if row[3]}
    else:
        # SQLite runs one writer at a time: nothing can be added between the two.
        conn.executemany("INSERT OR IGNORE INTO epcis_terms (kind, value) VALUES (?, ?)", wanted)
        found, there = {}, set()
    missing = [term for term in wanted if term not in found]
    if missing:
        params: list[Any] = []
        values_sql = any_of(conn.dialect, "value", sorted({v for _, v in missing}), params)
        rows = conn.fetchall(f"SELECT id, kind, value FROM epcis_terms WHERE {values_sql}", params)
        read = _numbered(rows)
        found |= read
        there |= read.keys()
    absent = [term for term in wanted if term not in found]
    if absent:
        raise RuntimeError(f"vocabulary terms were not numbered: {absent[:3]}")
    return found, there


def _numbered(rows: Iterable[Sequence[Any]]) -> dict[Term, int]:
    return {(int(kind), str(value)): int(number) for number, kind, value in rows}


class TermCache:
    """Term numbers this process has read, each confirmed again by the transaction that
    uses it: a pipelined capture then sends its rows without waiting to ask for numbers.

    A number changes only when the table is built afresh, and is kept only once another
    transaction had committed it. In use, a statement counts the kept (number, kind,
    value) rows still there; its answer comes with the projection's last sync. If one is
    gone, that raises ProjectionConflict: the rows are undone, the follower projects the
    events from the log, and nothing kept is trusted any more.
    """

    def __init__(self, size: int = 65_536) -> None:
        self._size = size
        self._numbers: dict[Term, int] = {}

    def numbers(self, conn: Connection, terms: Iterable[Term]) -> dict[Term, int]:
        """`term_numbers`, from what is kept where every term is, on a pipelined
        PostgreSQL connection."""
        wanted = set(terms)
        if wanted and conn.pipelined and conn.dialect.name == "postgresql":
            kept: dict[Term, int] = {}
            for term in wanted:
                number = self._numbers.get(term)
                if number is None:
                    break
                kept[term] = number
            else:
                self._confirm(conn, kept)
                return kept
        found, there = _interned(conn, wanted)
        if len(self._numbers) + len(there) > self._size:
            self._numbers.clear()
        self._numbers.update((term, found[term]) for term in there)
        return found

    def _confirm(self, conn: Connection, kept: dict[Term, int]) -> None:
        numbers, kinds, values = [], [], []
        for (kind, value), number in kept.items():
            numbers.append(number)
            kinds.append(kind)
            values.append(value)
        counted = conn.send_query(
            _COUNT_POSTGRESQL,
            (
                encoded_array(numbers, "bigint"),
                encoded_array(kinds, "smallint"),
                encoded_array(values, "text"),
            ),
        )

        def check() -> None:
            if counted()[0][0] != len(kept):
                self._numbers.clear()
                raise ProjectionConflict("the vocabulary terms were numbered afresh")

        conn.when_answered(check)


def term_values(conn: Connection, numbers: Iterable[int | None]) -> dict[int, str]:
    """The text of each term number (those of `None` left out)."""
    wanted = sorted({n for n in numbers if n is not None})
    if not wanted:
        return {}
    params: list[Any] = []
    where = any_of(conn.dialect, "id", wanted, params)
    return {
        int(n): str(v)
        for n, v in conn.fetchall(f"SELECT id, value FROM epcis_terms WHERE {where}", params)
    }


class TermIds:
    """The numbers of the terms a query names, read on the connection the query then runs
    on, and written into its SQL as literals.

    The planner sees the numbers and uses its statistics of them: a rare step is found
    through its index, a common one by walking the events in position order. Behind a
    subquery it would guess the same for both, and walk all events for the rare one.
    """

    def __init__(self, conn: Connection, read: Mapping[Term, int | None] | None = None) -> None:
        self._conn = conn
        self.dialect = conn.dialect
        #: Terms whose numbers were read already (`read_with`), None for those no event holds.
        self._read: Mapping[Term, int | None] = read or {}

    @classmethod
    def read_with(
        cls, conn: Connection, head: str, terms: Collection[Term]
    ) -> tuple[Any, "TermIds"]:
        """The value of `head` (a one-row, one-value SELECT without parameters) and the
        numbers of `terms`, in one statement: a query's fixed cost is mostly its trips."""
        params: list[Any] = []
        by_kind: dict[int, list[str]] = {}
        for kind, value in sorted(terms):
            by_kind.setdefault(kind, []).append(value)
        arms = [f"SELECT -1, NULL, ({head})"]
        for kind, values in by_kind.items():
            params.append(kind)
            wanted = any_of(conn.dialect, "t.value", values, params)
            arms.append(f"SELECT kind, value, id FROM epcis_terms t WHERE kind = ? AND {wanted}")
        found: dict[Term, int | None] = dict.fromkeys(terms)
        head_value = None
        for kind, text, number in conn.fetchall(" UNION ALL ".join(arms), params):
            if int(kind) == -1:
                head_value = number
            else:
                found[(int(kind), str(text))] = int(number)
        return head_value, cls(conn, found)

    def numbers(self, kind: int, terms_where: str, params: Sequence[Any]) -> list[int]:
        """The numbers of the terms of `kind` that `terms_where` (a condition on `t.value`,
        with `params`) selects."""
        return self._by_kind((kind,), terms_where, params).get(kind, [])

    def _by_kind(
        self, kinds: Sequence[int], terms_where: str, params: Sequence[Any]
    ) -> dict[int, list[int]]:
        kind_params: list[Any] = []
        kind_in = in_list("t.kind", kinds, kind_params)
        rows = self._conn.fetchall(
            f"SELECT t.kind, t.id FROM epcis_terms t WHERE {kind_in} AND ({terms_where})"
            " ORDER BY t.id",
            [*kind_params, *params],
        )
        found: dict[int, list[int]] = {}
        for kind, number in rows:
            found.setdefault(int(kind), []).append(int(number))
        return found

    def condition(
        self, kind: int, terms_where: str, params: Sequence[Any], column: str | None = None
    ) -> str:
        """`epcis_events e` holds, as its `kind`, one of the terms `terms_where` selects
        (see `numbers`); or `column`, when given, does."""
        return held_in(column or f"e.{COLUMNS[kind]}", self.numbers(kind, terms_where, params))

    def field_numbers(
        self, scope: str, names: Sequence[str], kinds: Sequence[int] = (FIELD,)
    ) -> dict[int, list[int]]:
        """By kind, the numbers of the fields `names` of `scope` that some event holds
        (`FIELD`), holds a text of (`FIELD_TEXTS`) or a number of (`FIELD_NUMBERS`): one
        statement for all of them."""
        params: list[Any] = []
        values = [field_term(scope, name) for name in names]
        return self._by_kind(kinds, any_of(self.dialect, "t.value", values, params), params)

    def fields(self, column: str, scope: str, names: Sequence[str]) -> str:
        """`column` holds one of the fields `names` of `scope`."""
        return held_in(column, self.field_numbers(scope, names).get(FIELD, []))

    def any_of(self, kind: int, values: Sequence[str]) -> str:
        """`epcis_events e` holds one of `values` as its `kind`."""
        if all((kind, value) in self._read for value in values):
            numbers = {self._read[(kind, value)] for value in values}
            return held_in(f"e.{COLUMNS[kind]}", sorted(n for n in numbers if n is not None))
        params: list[Any] = []
        return self.condition(kind, any_of(self.dialect, "t.value", values, params), params)

    def matching(self, kind: int, globs: Sequence[Any]) -> str:
        """`epcis_events e` holds, as its `kind`, a value matching one of the patterns."""
        params: list[Any] = []
        return self.condition(kind, any_glob(self.dialect, "t.value", globs, params), params)


def held_in(column: str, numbers: Sequence[int]) -> str:
    """`column` holds one of the term `numbers` (written as literals; none: never)."""
    return f"{column} IN ({', '.join(str(n) for n in numbers)})" if numbers else "1 = 0"
