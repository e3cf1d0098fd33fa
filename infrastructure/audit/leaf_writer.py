"""The tree's leaves, written in the transaction that appends the log entries they hash.

Every writer of the log calls `append` after its insert, while it holds the log's write
lock, so leaf indexes follow log order and a committed entry always has its leaf. Entries
that have none (a log written before the tree existed, or while it was switched off) get
theirs from the next writer, before its own: the tree never skips an entry.
"""

from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.persistence import StoredEvent

from domain.audit.entries import StoredEntry, entry_leaf

#: Log entries read at once while giving old entries their leaves.
_FILL_BATCH = 5000


def _values(row: Any) -> tuple[Any, ...]:
    # eventsourcing's PostgreSQL cursors give dicts, the others tuples or sqlite3.Row.
    return tuple(row.values()) if isinstance(row, dict) else tuple(row)


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
        self._last = (
            f"SELECT leaf_index, position FROM {self.leaves} ORDER BY leaf_index DESC LIMIT 1"
        )
        gap = f"SELECT 1 FROM {log} WHERE {position} > {{after}} AND {position} < {mark}"
        self._gap = gap.format(after=mark)
        # The last leaf and whether entries before `mark` lack one, in one round trip.
        after_newest = gap.format(after="newest.position")
        self._last_and_gap = (
            f"SELECT newest.leaf_index, newest.position, EXISTS ({after_newest})"
            f" FROM ({self._last}) AS newest"
        )
        self._entries = (
            f"SELECT {position}, originator_id, originator_version, topic, state FROM {log}"
            f" WHERE {position} > {mark} AND {position} < {mark} ORDER BY {position} LIMIT {mark}"
        )
        if backend == "postgresql":
            self._insert = (
                f"INSERT INTO {self.leaves} (leaf_index, position, hash)"
                " SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::bytea[])"
            )
        else:
            self._insert = (
                f"INSERT INTO {self.leaves} (leaf_index, position, hash) VALUES (?, ?, ?)"
            )

    def ddl(self) -> list[str]:
        """The leaves' table: each leaf's index, the position of its entry, its hash.

        Positions have no index of their own: they rise with the leaf index, so a
        position's leaf is found in a few steps on the leaf index (`TreeStore.leaf_of`).
        """
        if self.backend == "postgresql":
            return [
                f"CREATE TABLE IF NOT EXISTS {self.leaves} (leaf_index BIGINT PRIMARY KEY,"
                " position BIGINT NOT NULL, hash BYTEA NOT NULL)"
            ]
        return [
            f"CREATE TABLE IF NOT EXISTS {self.leaves} (leaf_index INTEGER PRIMARY KEY,"
            " position INTEGER NOT NULL, hash BLOB NOT NULL)"
        ]

    def append(self, cursor: Any, entries: Sequence[StoredEntry]) -> None:
        """Give `entries` (just inserted, in log order) their leaves, after any entry
        before them that has none."""
        if not entries:
            return
        first = entries[0].position
        cursor.execute(self._last_and_gap, (first,))
        row = cursor.fetchone()
        if row is None:  # no leaf yet
            index, position = -1, 0
            cursor.execute(self._gap, (position, first))
            gap = cursor.fetchone() is not None
        else:
            last_index, last_position, missing = _values(row)
            index, position, gap = int(last_index), int(last_position), bool(missing)
        if gap:
            index = self._fill(cursor, index, position, first)
        self._write(cursor, index + 1, entries)

    def fill(self, cursor: Any, before: int) -> int:
        """Give every entry before position `before` that has none its leaf; the number of
        leaves written. The caller holds the log's write lock."""
        index, position = self._last_leaf(cursor)
        return self._fill(cursor, index, position, before) - index

    def _last_leaf(self, cursor: Any) -> tuple[int, int]:
        cursor.execute(self._last)
        row = cursor.fetchone()
        return (-1, 0) if row is None else (int(_values(row)[0]), int(_values(row)[1]))

    def _fill(self, cursor: Any, index: int, after: int, before: int) -> int:
        for batch in self._unleaved(cursor, after, before):
            self._write(cursor, index + 1, batch)
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

    def _write(self, cursor: Any, first_index: int, entries: Sequence[StoredEntry]) -> None:
        indexes = range(first_index, first_index + len(entries))
        if self.backend == "postgresql":
            params = (
                list(indexes),
                [e.position for e in entries],
                [entry_leaf(e) for e in entries],
            )
            cursor.execute(self._insert, params, binary=True)
        else:
            rows = [(i, e.position, entry_leaf(e)) for i, e in zip(indexes, entries, strict=True)]
            cursor.executemany(self._insert, rows)


def _entry(row: tuple[Any, ...]) -> StoredEntry:
    position, originator_id, version, topic, state = row
    return StoredEntry(int(position), str(originator_id), int(version), str(topic), bytes(state))


def stored_entries(positions: Sequence[int], stored: Sequence[StoredEvent]) -> list[StoredEntry]:
    """Stored events with the positions the log gave them, as the tree's leaves read them."""
    return [
        StoredEntry(p, str(e.originator_id), e.originator_version, e.topic, e.state)
        for p, e in zip(positions, stored, strict=True)
    ]
