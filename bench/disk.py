"""Disk per event: the whole database and each table with its indexes, over the events
stored (PostgreSQL: `pg_database_size` and `pg_total_relation_size`; SQLite: the file's
pages and the `dbstat` virtual table).
"""

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg

from bench.table import Figure, Target
from infrastructure.database_url import DatabaseUrl

#: Issue 20: event store, query tables and indexes together.
TARGET = Target(1_500, at_most=True)
#: Tables under this share of the database are summed into one row.
SMALL = 0.01

POSTGRESQL_TABLES = """
SELECT n.nspname || '.' || c.relname, pg_total_relation_size(c.oid)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'm')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg_toast%'
"""

SQLITE_TABLES = """
SELECT coalesce(m.tbl_name, s.name), sum(s.pgsize)
FROM dbstat s LEFT JOIN sqlite_master m ON m.name = s.name
GROUP BY 1
"""


@dataclass(frozen=True)
class DiskUsage:
    """Bytes of the whole database, and of each table with its indexes (and TOAST)."""

    total: int
    tables: dict[str, int]


def disk_usage(database_url: str) -> DiskUsage:
    """What the database at `database_url` holds on disk now."""
    url = DatabaseUrl.parse(database_url)
    if url.backend == "postgresql":
        return _postgresql_usage(database_url)
    return _sqlite_usage(url.path)


def _postgresql_usage(database_url: str) -> DiskUsage:
    with psycopg.connect(database_url) as connection:
        total = connection.execute("SELECT pg_database_size(current_database())").fetchone()
        tables = connection.execute(POSTGRESQL_TABLES).fetchall()
    return DiskUsage(total[0] if total else 0, dict(tables))


def _sqlite_usage(path: str) -> DiskUsage:
    connection = sqlite3.connect(path)
    try:
        # Pages still in the write-ahead log belong in the file before it is measured.
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        try:
            tables = dict(connection.execute(SQLITE_TABLES).fetchall())
        except sqlite3.OperationalError:  # an SQLite built without dbstat
            tables = {}
    finally:
        connection.close()
    return DiskUsage(pages * page_size, tables)


def figures(usage: DiskUsage, events: int) -> Iterator[Figure]:
    """Bytes per event: the whole database against the target, then the larger tables."""
    yield Figure(
        f"disk, whole database ({events:,} events)", usage.total / events, "B/ev", None, TARGET
    )
    yield Figure("  tables + indexes together", sum(usage.tables.values()) / events, "B/ev")
    tree = sum(size for name, size in usage.tables.items() if _is_audit_tree(name))
    yield Figure("  audit tree (leaves, nodes, heads) of those", tree / events, "B/ev")
    small = {name: size for name, size in usage.tables.items() if size < usage.total * SMALL}
    for name, size in sorted(usage.tables.items(), key=lambda item: -item[1]):
        if name not in small:
            yield Figure(f"  {name.removeprefix('public.')} + indexes", size / events, "B/ev")
    if small:
        yield Figure(
            f"  {len(small)} smaller tables + indexes", sum(small.values()) / events, "B/ev"
        )


def _is_audit_tree(table: str) -> bool:
    return table.rpartition(".")[2] in ("audit_leaves", "audit_nodes", "audit_heads")
