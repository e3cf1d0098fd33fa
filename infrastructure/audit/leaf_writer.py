"""The tree's leaves, written in the transaction that appends the log entries they hash.

Every writer of the log calls `append` after its insert, while it holds the log's write
lock, so leaf indexes follow log order and a committed entry always has its leaf. Entries
that have none (a log written before the tree existed, or while it was switched off) get
theirs from the next writer, before its own: the tree never skips an entry.

Leaves are stored in runs: one row for the leaves of entries at consecutive positions,
their 32-byte hashes one after the other. An append of a thousand entries writes one row,
not a thousand: a row costs PostgreSQL ~10 µs to insert on a small machine, a third of
what capture spends on an event there, where a hash in a run costs bytes.
"""

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent

from domain.audit.entries import StoredEntry, entry_leaf
from infrastructure.pg_arrays import EncodedArray, encoded_columns

#: Log entries read at once while giving old entries their leaves.
_FILL_BATCH = 5000

#: Bytes of one leaf hash in a run.
HASH_SIZE = 32


def newest_run(table: str) -> str:
    """The newest run of leaves in `table`: its first index and position, and `leaves`,
    how many it holds (no row while the tree is empty)."""
    return (
        f"SELECT first_index, first_position, length(hashes) / {HASH_SIZE} AS leaves"
        f" FROM {table} ORDER BY first_index DESC LIMIT 1"
    )


def _values(row: Any) -> tuple[Any, ...]:
    # eventsourcing's PostgreSQL cursors give dicts, the others tuples or sqlite3.Row.
    return tuple(row.values()) if isinstance(row, dict) else tuple(row)


def stored_entries(positions: Sequence[int], stored: Sequence[StoredEvent]) -> list[StoredEntry]:
    """Stored events with the positions the log gave them, as the tree's leaves read them."""
    return [
        StoredEntry(p, str(e.originator_id), e.originator_version, e.topic, e.state)
        for p, e in zip(positions, stored, strict=True)
    ]


def runs(first_index: int, entries: Sequence[StoredEntry]) -> list[tuple[int, int, bytes]]:
    """The rows of leaves for `entries` from leaf `first_index` on: (first leaf index,
    first position, hashes), a row for each run of consecutive positions."""
    rows: list[tuple[int, int, bytes]] = []
    start = 0
    for end in range(1, len(entries) + 1):
        if end == len(entries) or entries[end].position != entries[end - 1].position + 1:
            hashes = b"".join(entry_leaf(e) for e in entries[start:end])
            rows.append((first_index + start, entries[start].position, hashes))
            start = end
    return rows


class LeafWriter:
    """Writes leaves through a DB-API cursor of either backend (the recorders' or ours)."""

    def __init__(self, backend: str, schema: str | None = None) -> None:
        self.backend = backend
        if backend == "postgresql":
            prefix = f'"{schema}".' if schema else ""
            self.leaves = f"{prefix}audit_leaves"
            log, position, mark = f"{prefix}tracepoint_events", "notification_id", "%s"
        else:
            self.leaves, log, position, mark = "audit_leaves", "stored_events", "rowid", "?"
        self._last = newest_run(self.leaves)
        gap = f"SELECT 1 FROM {log} WHERE {position} > {{after}} AND {position} < {mark}"
        self._gap = gap.format(after=mark)
        self._entries = (
            f"SELECT {position}, originator_id, originator_version, topic, state FROM {log}"
            f" WHERE {position} > {mark} AND {position} < {mark} ORDER BY {position} LIMIT {mark}"
        )
        # PostgreSQL: the runs inserted after the newest leaf in one statement, unless
        # entries before them lack a leaf (then no row, and `append` fills the gap first):
        # one round trip for an append, where a check and an insert took two.
        self._append_after_newest = (
            f"WITH newest AS ({self._last}),"
            " base AS (SELECT COALESCE((SELECT first_index + leaves FROM newest), 0) AS next_index,"
            " COALESCE((SELECT first_position + leaves - 1 FROM newest), 0) AS last_position)"
            f" INSERT INTO {self.leaves} (first_index, first_position, hashes)"
            " SELECT base.next_index + run.run_offset, run.first_position, run.hashes"
            " FROM base, unnest(%s::bigint[], %s::bigint[], %s::bytea[])"
            " AS run (run_offset, first_position, hashes)"
            f" WHERE NOT EXISTS ({gap.format(after='base.last_position')})"
            # Read, not counted: in a pipeline the count is not known before a sync.
            " RETURNING first_index"
        )
        if backend == "postgresql":
            self._insert = (
                f"INSERT INTO {self.leaves} (first_index, first_position, hashes)"
                " SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bytea[])"
            )
        else:
            self._insert = (
                f"INSERT INTO {self.leaves} (first_index, first_position, hashes) VALUES (?, ?, ?)"
            )

    def ddl(self) -> list[str]:
        """The runs of leaves, and an index of their first positions (one entry a run)."""
        if self.backend == "postgresql":
            return [
                f"CREATE TABLE IF NOT EXISTS {self.leaves} (first_index BIGINT PRIMARY KEY,"
                " first_position BIGINT NOT NULL, hashes BYTEA NOT NULL)",
                # Hashes do not compress: no attempt at it on each insert. Altered only
                # once: the ALTER's lock would queue behind every running capture.
                "DO $$ BEGIN IF (SELECT attstorage FROM pg_attribute"
                f" WHERE attrelid = '{self.leaves}'::regclass AND attname = 'hashes') <> 'e'"
                f" THEN ALTER TABLE {self.leaves} ALTER COLUMN hashes SET STORAGE EXTERNAL;"
                " END IF; END $$",
                f"CREATE INDEX IF NOT EXISTS audit_leaves_position ON {self.leaves}"
                " (first_position)",
            ]
        return [
            f"CREATE TABLE IF NOT EXISTS {self.leaves} (first_index INTEGER PRIMARY KEY,"
            " first_position INTEGER NOT NULL, hashes BLOB NOT NULL)",
            f"CREATE INDEX IF NOT EXISTS audit_leaves_position ON {self.leaves} (first_position)",
        ]

    def append(self, cursor: Any, entries: Sequence[StoredEntry]) -> None:
        """Give `entries` (just inserted, in log order) their leaves, after any entry
        before them that has none."""
        self.send(cursor, entries)()

    def send(self, cursor: Any, entries: Sequence[StoredEntry]) -> Callable[[], None]:
        """`append`, whose PostgreSQL statement is sent without reading its answer: the
        check returned, to call before the commit, reads it (in a pipeline, once it has
        come with later answers) and writes the leaves after any entries that lack one."""
        if not entries:
            return _nothing
        first = entries[0].position
        if self.backend == "postgresql":
            columns = _columns(runs(0, entries))
            cursor.execute(self._append_after_newest, (*columns, first), binary=True)

            def check() -> None:
                if cursor.fetchone() is None:  # nothing inserted: entries before lack one
                    index, position = self._last_leaf(cursor)
                    index = self._fill(cursor, index, position, first)
                    self.write(cursor, index + 1, entries)

            return check
        # SQLite's statements cost no round trip: a check, then the insert.
        index, position = self._last_leaf(cursor)
        cursor.execute(self._gap, (position, first))
        if cursor.fetchone() is not None:
            index = self._fill(cursor, index, position, first)
        self.write(cursor, index + 1, entries)
        return _nothing

    def fill(self, cursor: Any, before: int) -> int:
        """Give every entry before position `before` that has none its leaf; the number of
        leaves written. The caller holds the log's write lock."""
        index, position = self._last_leaf(cursor)
        return self._fill(cursor, index, position, before) - index

    def write(self, cursor: Any, first_index: int, entries: Sequence[StoredEntry]) -> None:
        """Store the leaves of `entries` from leaf `first_index` on. The caller holds the
        log's write lock and knows that index comes next (`append`, `fill`)."""
        rows = runs(first_index, entries)
        if self.backend == "postgresql":
            cursor.execute(self._insert, _columns(rows), binary=True)
        else:
            cursor.executemany(self._insert, rows)

    def _last_leaf(self, cursor: Any) -> tuple[int, int]:
        cursor.execute(self._last)
        row = cursor.fetchone()
        if row is None:
            return -1, 0
        run_index, run_position, count = (int(v) for v in _values(row))
        return run_index + count - 1, run_position + count - 1

    def _fill(self, cursor: Any, index: int, after: int, before: int) -> int:
        for batch in self._unleaved(cursor, after, before):
            self.write(cursor, index + 1, batch)
            index += len(batch)
        return index

    def _unleaved(self, cursor: Any, after: int, before: int) -> Iterator[list[StoredEntry]]:
        while True:
            cursor.execute(self._entries, (after, before, _FILL_BATCH))
            batch = [_entry(_values(row)) for row in cursor.fetchall()]
            if not batch:
                return
            yield batch
            after = batch[-1].position


def _nothing() -> None:
    """The check of leaves written already."""


def _columns(rows: Sequence[tuple[int, int, bytes]]) -> list[EncodedArray | list[Any]]:
    """Rows as one array per column, as `unnest` takes them."""
    return encoded_columns(rows, ("bigint", "bigint", "bytea"))


def _entry(row: tuple[Any, ...]) -> StoredEntry:
    position, originator_id, version, topic, state = row
    return StoredEntry(int(position), str(originator_id), int(version), str(topic), bytes(state))
