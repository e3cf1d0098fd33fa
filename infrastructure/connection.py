"""A database connection inside one transaction, speaking the shared SQL of both backends
(`Database.transaction` hands them out)."""

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from psycopg import Pipeline

from infrastructure.column_types import column_types
from infrastructure.pg_arrays import encoded_columns
from infrastructure.pg_pipeline import discard_errors
from infrastructure.sql_dialect import Dialect

Row = tuple[Any, ...]

#: Up to this many rows `insert_many` sends as one INSERT rather than a COPY.
_FEW_ROWS = 32


class Connection:
    """A database connection inside one transaction, speaking the shared SQL."""

    def __init__(
        self,
        raw: Any,
        dialect: Dialect,
        pipeline: Pipeline | None = None,
        quiet: Any = None,
        schema: str = "public",
    ) -> None:
        """`quiet` (PostgreSQL) is a cursor for the statements whose answers nobody reads,
        and outside a pipeline for every statement: psycopg's cursors cost more to make
        than a short statement costs to send. Without it (SQLite; a read on a replica),
        statements go to the connection itself. `schema` is the one the tables are in,
        which scopes the locks (`lock`)."""
        self._raw = raw
        self.dialect = dialect
        self._schema = schema
        self._pipeline = pipeline
        self._quiet = quiet if quiet is not None else raw
        # Outside a pipeline every answer is read before the next statement is sent.
        self._reader = self._quiet if pipeline is None else raw
        self._before_commit: list[Callable[[], None]] = []
        self._when_answered: list[Callable[[], None]] = []

    @property
    def raw(self) -> Any:
        """The driver's connection, for statements only one dialect has."""
        return self._raw

    @property
    def pipelined(self) -> bool:
        """Whether statements wait for the next sync or read to be answered
        (`Database.transaction(pipelined=True)`)."""
        return self._pipeline is not None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        cursor = self._reader.execute(self.dialect.render(sql), params)
        if self._pipeline is not None:
            self._pipeline.sync()  # the count arrives with the answer
        return int(cursor.rowcount)

    def send(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement without waiting for its answer: pipelined, it comes with the
        next sync or read, which raises its error."""
        self._quiet.execute(self.dialect.render(sql), params)

    def send_counted(self, sql: str, params: Sequence[Any] = ()) -> Callable[[], int]:
        """`send`, returning what gives the number of rows the statement changed, once
        answered."""
        cursor = self._raw.execute(self.dialect.render(sql), params)
        return lambda: int(cursor.rowcount)

    def send_query(self, sql: str, params: Sequence[Any] = ()) -> Callable[[], list[Row]]:
        """`fetchall` without waiting: pipelined, the rows come with the next sync or read.
        Returns what gives them, once answered."""
        if self._pipeline is None:
            rows = self.fetchall(sql, params)
            return lambda: rows
        cursor = self._raw.execute(self.dialect.render(sql), params)
        return lambda: list(cursor.fetchall())

    def sync(self) -> None:
        """Have every statement sent so far answered, raising the first one's error; then
        call the checks `when_answered` held back."""
        if self._pipeline is not None:
            self._pipeline.sync()
        checks, self._when_answered = self._when_answered, []
        for check in checks:
            check()

    def when_answered(self, check: Callable[[], None]) -> None:
        """Call `check` (which may raise) once the statements sent so far are answered:
        pipelined, at the next `sync`; else now."""
        if self._pipeline is None:
            check()
        else:
            self._when_answered.append(check)

    def before_commit(self, check: Callable[[], None]) -> None:
        """Call `check` (which may raise, or write) before the transaction commits:
        pipelined, once everything else is sent, so that its answers have come; else now."""
        if self._pipeline is None:
            check()
        else:
            self._before_commit.append(check)

    def run_before_commit(self) -> None:
        """Call the checks `before_commit` held back (the transaction is about to commit),
        after any that `when_answered` still holds."""
        if self._when_answered:
            self.sync()
        for check in self._before_commit:
            check()

    def rollback_to(self, savepoint: str) -> None:
        """Undo what was written since `savepoint`, also after a statement failed."""
        if self._pipeline is not None:
            discard_errors(self._pipeline)
        # What was held back was about what is now undone.
        self._when_answered = []
        self._quiet.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters."""
        rows = list(rows)
        if rows:
            self._quiet.executemany(self.dialect.render(sql), rows)

    def insert_many(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
    ) -> None:
        """Insert many rows at once: on PostgreSQL one INSERT (a few rows, or in a pipeline)
        or a COPY; a prepared executemany on SQLite."""
        if not rows:
            return
        if (
            self.dialect.name == "postgresql"
            and len(rows) <= _FEW_ROWS
            and (len(rows) == 1 or not self.pipelined)
        ):
            # A COPY costs two round trips more than one INSERT of a few rows. Pipelined,
            # rows go as arrays from two on: a VALUES list of their parameters is a
            # statement of its own for every count of rows, which psycopg parses again
            # each time past 50 parameters, and PostgreSQL plans afresh.
            marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
            self._quiet.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
                + ", ".join([marks] * len(rows)),
                [value for row in rows for value in row],
            )
            return
        if self.dialect.name == "postgresql" and self.pipelined:
            # A pipeline cannot COPY. One array a column, in binary: a statement of
            # constant text, where a VALUES list of every row's parameters cost psycopg
            # more to build than the rows cost the server (100 rows: ~0.3 ms a table).
            types = column_types(self._raw, self._schema, table, columns)
            arrays = ", ".join(f"%b::{kind}[]" for kind in types)
            self._quiet.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT * FROM unnest({arrays})",
                encoded_columns(rows, types),
            )
            return
        if self.dialect.name == "postgresql":
            # COPY moves bulk rows several times faster than even pipelined INSERTs.
            with self._raw.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        marks = ", ".join("?" * len(columns))
        self._raw.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def lock(self, name: str) -> None:
        """Make transactions that lock the same name take turns, until this one ends.

        PostgreSQL: a transaction-scoped advisory lock. SQLite needs nothing: its write
        transactions (BEGIN IMMEDIATE) already run one at a time.
        """
        if self.dialect.name == "postgresql":
            self._quiet.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(name, self._schema),))

    def lock_shared(self, name: str) -> None:
        """Wait while another transaction or session holds `name` exclusively (`lock`,
        `Database.exclusive`); holders of the shared lock do not wait for each other."""
        if self.dialect.name == "postgresql":
            self._quiet.execute(
                "SELECT pg_advisory_xact_lock_shared(%s)", (lock_key(name, self._schema),)
            )

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query."""
        return list(self._reader.execute(self.dialect.render(sql), params).fetchall())

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        row = self._reader.execute(self.dialect.render(sql), params).fetchone()
        return tuple(row) if row is not None else None

    def fetchval(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row, or None."""
        row = self.fetchone(sql, params)
        return row[0] if row else None


def lock_key(name: str, schema: str = "public") -> int:
    """The 64-bit key of a PostgreSQL advisory lock named `name` for the tables in
    `schema`: advisory locks are the whole database's, and services in other schemas of
    it (`?schema=`) must neither wait for these nor skip work while another holds one."""
    # The public schema's keys are the names alone, as before schemas scoped them: a
    # process of the earlier release, during an upgrade, still takes turns with the new.
    scoped = name if schema == "public" else f"{schema}\x00{name}"
    return int.from_bytes(hashlib.sha256(scoped.encode()).digest()[:8], "big", signed=True)
