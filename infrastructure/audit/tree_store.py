"""The audit tree as stored: leaves (written with the log), the hashes of its larger
perfect subtrees (built from the leaves, a read model), and the signed heads (kept for
good: a replay rebuilds the tree, never the heads)."""

from collections.abc import Iterator, Sequence
from typing import Any

from domain.audit.entries import StoredEntry
from domain.audit.heads import TreeHead
from domain.audit.merkle import node_hash, perfect_of
from infrastructure.audit.leaf_writer import HASH_SIZE, LeafWriter, newest_run
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.event_store import log_position, log_table

#: Subtrees of 2**NODE_LEVEL leaves and more are stored as nodes, one for every 128
#: leaves; a proof hashes a smaller one from its leaves (at most 255, 8 KB of hashes
#: read from their runs, about a millisecond's hashing).
NODE_LEVEL = 8

#: Leaves read at once while building nodes.
_BUILD_BATCH = 1 << 16

_NODES_DDL = (
    "CREATE TABLE IF NOT EXISTS audit_nodes (level INTEGER NOT NULL, idx {bigint} NOT NULL,"
    " hash {blob} NOT NULL, PRIMARY KEY (level, idx))"
)
_HEADS_DDL = (
    "CREATE TABLE IF NOT EXISTS audit_heads (tree_size {bigint} PRIMARY KEY,"
    " root_hash {blob} NOT NULL, timestamp {bigint} NOT NULL, signature {blob} NOT NULL,"
    " key_id TEXT NOT NULL)"
)


class TreeStore:
    """Reads the tree and its heads, builds its nodes, keeps its heads."""

    def __init__(self, database: Database) -> None:
        self._db = database
        with database.transaction() as conn:
            self._create(conn)

    def _create(self, conn: Connection) -> None:
        for ddl in (_NODES_DDL, _HEADS_DDL):
            conn.execute(ddl)

    # --- the tree ------------------------------------------------------------------

    def size(self) -> int:
        """How many leaves the tree has."""
        with self._db.transaction(write=False) as conn:
            return _size(conn)

    def leaf_of(self, position: int) -> tuple[int, bytes] | None:
        """The leaf index and hash of the log entry at `position`, if it has one."""
        with self._db.transaction(write=False) as conn:
            # Of the run that may hold it, only the one hash is read.
            row = conn.fetchone(
                "SELECT first_index + (? - first_position), substr(hashes,"
                f" CAST((? - first_position) * {HASH_SIZE} + 1 AS INTEGER), {HASH_SIZE})"
                " FROM audit_leaves WHERE first_position <= ?"
                " ORDER BY first_position DESC LIMIT 1",
                (position, position, position),
            )
        if row is None or not row[1]:
            return None
        return int(row[0]), bytes(row[1])

    def entry_at(self, position: int) -> StoredEntry | None:
        """The log entry at `position` as stored, if the log holds one."""
        with self._db.transaction(write=False) as conn:
            found = log_entries(conn, position - 1, 1)
        return found[0] if found and found[0].position == position else None

    def leaves(self, start: int, end: int) -> list[tuple[int, int, bytes]]:
        """The leaves from index `start` to before `end`: (index, position, hash)."""
        with self._db.transaction(write=False) as conn:
            return _leaf_range(conn, start, end)

    def perfect(self, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        """MTH of each perfect subtree `(start, size)`, from stored nodes where there are
        (`build` first) and from the leaves below them else."""
        with self._db.transaction(write=False) as conn:
            return _Reading(conn).perfect(ranges)

    def build(self) -> None:
        """Store the nodes of every perfect subtree of 2**NODE_LEVEL leaves and more that
        the leaves complete and that is not stored yet. Several processes may build at
        once: they store the same hashes."""
        with self._db.transaction(write=False) as conn:
            # Each build completes every level in one transaction: when the lowest level
            # is up to date, so are those above it, and nothing needs the write lock.
            if _built(conn, NODE_LEVEL) >= _size(conn) >> NODE_LEVEL:
                return
        with self._db.transaction(durable=False) as conn:
            size = _size(conn)
            for level in range(NODE_LEVEL, size.bit_length()):
                built = _built(conn, level)
                target = size >> level
                if built >= target:
                    continue
                if level == NODE_LEVEL:
                    self._build_lowest(conn, built, target)
                else:
                    rows = conn.fetchall(
                        "SELECT hash FROM audit_nodes WHERE level = ? AND idx >= ? AND idx < ?"
                        " ORDER BY idx",
                        (level - 1, 2 * built, 2 * target),
                    )
                    children = [bytes(r[0]) for r in rows]
                    if len(children) != 2 * (target - built):
                        # A lower level is not complete yet: the next build does this one.
                        return
                    hashes = [
                        node_hash(children[i], children[i + 1]) for i in range(0, len(children), 2)
                    ]
                    _insert_nodes(conn, level, built, hashes)

    def _build_lowest(self, conn: Connection, built: int, target: int) -> None:
        width = 1 << NODE_LEVEL
        step = _BUILD_BATCH // width
        for first in range(built, target, step):
            last = min(first + step, target)
            leaves = [h for _, _, h in _leaf_range(conn, first * width, last * width)]
            hashes = [perfect_of(leaves[i : i + width]) for i in range(0, len(leaves), width)]
            _insert_nodes(conn, NODE_LEVEL, first, hashes)

    def drop(self, conn: Connection, leaves: LeafWriter) -> None:
        """Drop the leaves and nodes and make them again, empty (a replay refills them);
        the heads stay."""
        conn.execute("DROP TABLE IF EXISTS audit_nodes")
        conn.execute(f"DROP TABLE IF EXISTS {leaves.leaves}")
        for statement in leaves.ddl():
            conn.execute(statement)
        self._create(conn)

    # --- heads -----------------------------------------------------------------------

    def add_head(self, head: TreeHead) -> TreeHead:
        """Keep a signed head; the one kept for its size when there is one already."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO audit_heads (tree_size, root_hash, timestamp, signature, key_id)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tree_size) DO NOTHING",
                (head.tree_size, head.root_hash, head.timestamp, head.signature, head.key_id),
            )
            row = conn.fetchone(f"{_HEAD} WHERE tree_size = ?", (head.tree_size,))
        assert row is not None
        return _head(row)

    def heads(self, limit: int, offset: int = 0) -> list[TreeHead]:
        """Signed heads, newest (largest) first."""
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"{_HEAD} ORDER BY tree_size DESC LIMIT ? OFFSET ?", (limit, offset)
            )
        return [_head(r) for r in rows]

    def head_at(self, size: int) -> TreeHead | None:
        """The signed head of the tree of `size` leaves, if one was signed."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(f"{_HEAD} WHERE tree_size = ?", (size,))
        return None if row is None else _head(row)

    def all_heads(self) -> Iterator[TreeHead]:
        """Every signed head, smallest first."""
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(f"{_HEAD} ORDER BY tree_size")
        return (_head(r) for r in rows)


_HEAD = "SELECT tree_size, root_hash, timestamp, signature, key_id FROM audit_heads"


def _head(row: Sequence[Any]) -> TreeHead:
    size, root_hash, timestamp, signature, key_id = row
    return TreeHead(int(size), bytes(root_hash), int(timestamp), bytes(signature), str(key_id))


def _size(conn: Connection) -> int:
    row = conn.fetchone(newest_run("audit_leaves"))
    return 0 if row is None else int(row[0]) + int(row[2])


def _leaf_range(conn: Connection, start: int, end: int) -> list[tuple[int, int, bytes]]:
    """The leaves from index `start` to before `end`, from the runs that hold them: of each
    run only the part in the range is read (PostgreSQL reads an uncompressed value's
    slice without the rest)."""
    rows = conn.fetchall(
        "SELECT first_index + low, first_position + low,"
        f" substr(hashes, CAST(low * {HASH_SIZE} + 1 AS INTEGER),"
        f" CAST((high - low) * {HASH_SIZE} AS INTEGER))"
        " FROM (SELECT first_index, first_position, hashes,"
        " CASE WHEN ? > first_index THEN ? - first_index ELSE 0 END AS low,"
        f" CASE WHEN ? - first_index < length(hashes) / {HASH_SIZE} THEN ? - first_index"
        f" ELSE length(hashes) / {HASH_SIZE} END AS high"
        " FROM audit_leaves WHERE first_index < ? AND first_index >= (SELECT"
        " COALESCE(MAX(first_index), 0) FROM audit_leaves WHERE first_index <= ?)) AS runs"
        " WHERE high > low ORDER BY 1",
        (start, start, end, end, end, start),
    )
    found: list[tuple[int, int, bytes]] = []
    for first_index, first_position, hashes in rows:
        blob = bytes(hashes)
        found.extend(
            (
                int(first_index) + k,
                int(first_position) + k,
                blob[k * HASH_SIZE : (k + 1) * HASH_SIZE],
            )
            for k in range(len(blob) // HASH_SIZE)
        )
    return found


def _built(conn: Connection, level: int) -> int:
    """How many nodes of `level` are stored (they are stored left to right)."""
    return int(
        conn.fetchval("SELECT COALESCE(MAX(idx) + 1, 0) FROM audit_nodes WHERE level = ?", (level,))
    )


def _insert_nodes(conn: Connection, level: int, first: int, hashes: Sequence[bytes]) -> None:
    rows = [(level, first + i, h) for i, h in enumerate(hashes)]
    if conn.dialect.name == "postgresql":
        conn.raw.execute(
            "INSERT INTO audit_nodes (level, idx, hash)"
            " SELECT * FROM unnest(%s::int[], %s::bigint[], %s::bytea[])"
            " ON CONFLICT (level, idx) DO NOTHING",
            ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]),
            binary=True,
        )
    else:
        conn.executemany(
            "INSERT INTO audit_nodes (level, idx, hash) VALUES (?, ?, ?)"
            " ON CONFLICT (level, idx) DO NOTHING",
            rows,
        )


class _Reading:
    """Perfect subtrees read in one transaction: stored nodes in one statement;
    small subtrees, and any node not built yet, from their leaves, the leaves lying close
    together read in one statement (a proof's lie by its leaf and by the tree's end)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def perfect(self, ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        wanted: dict[int, set[int]] = {}
        for start, size in ranges:
            if size >= 1 << NODE_LEVEL:
                level = size.bit_length() - 1
                wanted.setdefault(level, set()).add(start >> level)
        nodes: dict[tuple[int, int], bytes] = {}
        if wanted:
            where = " OR ".join(
                f"(level = ? AND idx IN ({', '.join('?' * len(indexes))}))"
                for indexes in wanted.values()
            )
            params = [v for level, indexes in wanted.items() for v in (level, *sorted(indexes))]
            rows = self._conn.fetchall(
                f"SELECT level, idx, hash FROM audit_nodes WHERE {where}", params
            )
            nodes.update(((int(level), int(i)), bytes(h)) for level, i, h in rows)
        missing = [
            (start, size)
            for start, size in ranges
            if (size.bit_length() - 1, start >> (size.bit_length() - 1)) not in nodes
        ]
        leaves = self._leaves(missing)
        result = []
        for start, size in ranges:
            level = size.bit_length() - 1
            stored = nodes.get((level, start >> level))
            result.append(stored if stored is not None else _perfect_from(leaves, start, size))
        return result

    def _leaves(self, ranges: Sequence[tuple[int, int]]) -> dict[int, bytes]:
        """The leaf hashes of `ranges`, by index: ranges within `_NEAR` leaves of each
        other are read as one."""
        found: dict[int, bytes] = {}
        spans: list[list[int]] = []
        for start, size in sorted(ranges):
            if spans and start - spans[-1][1] <= _NEAR:
                spans[-1][1] = max(spans[-1][1], start + size)
            else:
                spans.append([start, start + size])
        for start, end in spans:
            found.update((i, h) for i, _, h in _leaf_range(self._conn, start, end))
        return found


#: Leaves between two ranges a proof needs that are read rather than asked for apart.
_NEAR = 1 << NODE_LEVEL


def _perfect_from(leaves: dict[int, bytes], start: int, size: int) -> bytes:
    try:
        return perfect_of([leaves[i] for i in range(start, start + size)])
    except KeyError as exc:
        raise LookupError(f"the tree has no leaves {start} to {start + size - 1}") from exc


def log_entries(conn: Connection, after: int, limit: int) -> list[StoredEntry]:
    """Up to `limit` log entries after position `after`, in log order, as stored."""
    table, position = log_table(conn.dialect.name), log_position(conn.dialect.name)
    rows = conn.fetchall(
        f"SELECT {position}, originator_id, originator_version, topic, state FROM {table}"
        f" WHERE {position} > ? ORDER BY {position} LIMIT ?",
        (after, limit),
    )
    return [StoredEntry(int(p), str(o), int(v), str(t), bytes(s)) for p, o, v, t, s in rows]
