"""Search indexes of the collections' tables: how `search` and the case-insensitive
substring filters find rows without reading every one.

A collection's *search fields* are its string and text fields that are not concealed;
`search` matches `LOWER(field) LIKE '%term%'` on them (see `projections.items.search`).
The indexes answer that same question, with the same answers:

- **PostgreSQL**: the table gets a *search document*, a stored generated column
  `__search_<hash of its definition>` holding the lowered search fields joined by a
  control character (U+001F), and a GIN trigram index (`pg_trgm`) on it. A field that
  holds the term puts it in the document too, and a term without that character found
  in the document lies within one field: so `document LIKE '%term%'`, which the index
  answers, is exactly the search over all search fields. Where the caller may read only
  some of them (or the term holds the separator), the query ANDs it with the exact
  per-field conditions, which PostgreSQL checks on the rows the index found. Stored, the
  document costs a plain LIKE to check on a row (computed, ten times more), which keeps
  rechecks and walks in sort order cheap. The extension is created when missing; where
  it cannot be (not installed, not allowed) the document goes without its index.
- **SQLite**: a contentless FTS5 table `<table>__search` with the trigram tokenizer, one
  column per search field holding its `LOWER()`ed value under the row's rowid. Triggers
  on the table keep it in step with every insert, update and delete, whoever writes (the
  projection, a replay, a test). The lowered term as a phrase of a column is exactly
  `LOWER(field) LIKE '%term%'`, so the index replaces the per-field conditions.

Trigrams need three characters: shorter terms (on PostgreSQL, terms without three
letters or digits in a row) are matched row by row, as without the index.

`search` also compares number fields (when the term is a number) and UUID fields (when
it is a UUID) for equality: each such field has a b-tree index (where the table has none
already), so that these comparisons, ORed with the text match, use indexes too. The
collection's sort field has one as well: a list sorted by it (the default) then reads
its first page in order and stops, where a common term or value would otherwise have
every match sorted.

The SQLite index is keyed by rowid. VACUUM may renumber the rowids of a table without an
integer primary key: after a VACUUM of a SQLite read-model file, run `tracepoint replay`.
"""

import hashlib
import logging
from collections.abc import Sequence

from domain.collections.schema import Collection, Field, FieldType
from domain.collections.selection import is_concealed
from infrastructure.connection import Connection

log = logging.getLogger(__name__)

_SUFFIX = "__search"
#: Joins the fields in the search document; a term holding it may match across two.
SEPARATOR = "\x1f"
_TRIGGERS = ("insert", "delete", "update")
# PostgreSQL cuts longer names, which could then clash.
_MAX_NAME = 63


def search_fields(collection: Collection) -> tuple[Field, ...]:
    """The fields `search` matches as text: string and text fields, not concealed (or
    those the collection names)."""
    return tuple(
        field
        for field in collection.fields
        if field.type in (FieldType.STRING, FieldType.TEXT)
        and not is_concealed(field)
        and (not collection.search or field.name in collection.search)
    )


def search_table(collection: Collection) -> str:
    """SQLite: the FTS5 table holding the collection's search index."""
    return collection.table + _SUFFIX


def search_column(collection: Collection) -> str:
    """PostgreSQL: the column holding the search document; its name changes with the
    search fields, so a table made for other fields is seen to lack it."""
    return "__search_" + hashlib.sha256(_document(collection).encode()).hexdigest()[:12]


def has_search_index(conn: Connection, collection: Collection) -> bool:
    """Whether the collection's table has its search index (SQLite: the FTS5 table;
    PostgreSQL: the search document), as `create_search_indexes` makes it."""
    if conn.dialect.name == "sqlite":
        found = conn.fetchval(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
            (search_table(collection),),
        )
    else:
        found = conn.fetchval(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(?) AND attname = ?"
            " AND NOT attisdropped",
            (_quoted(collection.table), search_column(collection)),
        )
    return bool(found)


def _document(collection: Collection) -> str:
    parts = [f"COALESCE({_quoted(f.name)}, '')" for f in search_fields(collection)]
    return "LOWER(" + f" || chr({ord(SEPARATOR)}) || ".join(parts) + ")"


def indexed_fields(collection: Collection) -> frozenset[str]:
    """The fields a b-tree index leads with: the key, relations, unique fields (see
    `projections.items.records.collection_ddl`) and the sort field."""
    return frozenset(
        {collection.primary_key, collection.sort_field}
        | {f.name for f in collection.fields if f.relation is not None or f.unique or f.lookup}
    )


def equality_fields(collection: Collection) -> tuple[Field, ...]:
    """The fields `search` compares for equality: number and UUID fields, not concealed."""
    types = (FieldType.INTEGER, FieldType.FLOAT, FieldType.UUID)
    return tuple(f for f in collection.fields if f.type in types and not is_concealed(f))


def fts_columns(fields: Sequence[Field]) -> str:
    """SQLite: an FTS5 column filter naming these fields' columns (`{"a" "b"} : `)."""
    return "{" + " ".join(_quoted(f.name) for f in fields) + "} : "


def create_search_indexes(conn: Connection, collections: Sequence[Collection]) -> None:
    """Create the search index of each collection's table where it is missing or no
    longer matches the collection's search fields, filled from the rows already there."""
    for collection in collections:
        _create_query_indexes(conn, collection)
    if conn.dialect.name == "postgresql":
        opclass = _trigram_operator_class(conn)
        documents = _search_documents(conn)
        for collection in collections:
            present = documents.get(collection.table, [])
            _create_search_document(conn, collection, opclass, present)
        return
    for collection in collections:
        _create_fts_table(conn, collection)


def search_environment(conn: Connection) -> str | None:
    """What search indexes depend on in the database itself: on PostgreSQL the schema of
    `pg_trgm`, None while it is not installed; on SQLite its built-in FTS5."""
    if conn.dialect.name != "postgresql":
        return "fts5"
    schema = conn.fetchval(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
        " WHERE e.extname = 'pg_trgm'"
    )
    return str(schema) if schema is not None else None


def drop_search_indexes(conn: Connection, collections: Sequence[Collection]) -> None:
    """Drop the search indexes (PostgreSQL's go with their tables)."""
    if conn.dialect.name == "sqlite":
        for collection in collections:
            conn.execute(f"DROP TABLE IF EXISTS {_quoted(search_table(collection))}")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _index_name(table: str, kind: str, detail: str) -> str:
    name = f"{table}__{kind}_{detail}"
    if len(name) <= _MAX_NAME:
        return name
    return f"{table[:40]}__{kind}_{hashlib.sha256(name.encode()).hexdigest()[:12]}"


def _create_query_indexes(conn: Connection, collection: Collection) -> None:
    table, key = _quoted(collection.table), _quoted(collection.primary_key)
    indexed = {f.name for f in collection.fields if f.relation is not None or f.unique}
    # Lookup fields are indexed here rather than in `collection_ddl`, so that adding one
    # creates its index on the next start without rebuilding the table.
    for field in (*equality_fields(collection), *(f for f in collection.fields if f.lookup)):
        # The key, relations and unique fields have an index already (`collection_ddl`).
        if field.name != collection.primary_key and field.name not in indexed:
            name = _quoted(_index_name(collection.table, "eq", field.name))
            conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({_quoted(field.name)})")
    if collection.sort_field != collection.primary_key:
        # In the order of the default sort (`ASC NULLS FIRST`, then the key), which is
        # SQLite's own order of NULLs and not PostgreSQL's.
        nulls = " NULLS FIRST" if conn.dialect.name == "postgresql" else ""
        name = _quoted(_index_name(collection.table, "sort", collection.sort_field))
        sort = _quoted(collection.sort_field)
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({sort}{nulls}, {key})")


def _trigram_operator_class(conn: Connection) -> str | None:
    """`pg_trgm`'s GIN operator class, schema-qualified (the extension may live in a
    schema off the search path); None when the extension cannot be had."""
    conn.execute("SAVEPOINT search_index")
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except Exception as exc:  # the driver's error: not installed, or not allowed
        conn.execute("ROLLBACK TO SAVEPOINT search_index")
        log.warning("pg_trgm is not available (%s): search documents go unindexed", exc)
    conn.execute("RELEASE SAVEPOINT search_index")
    schema = conn.fetchval(
        "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace"
        " WHERE e.extname = 'pg_trgm'"
    )
    return None if schema is None else f"{_quoted(schema)}.gin_trgm_ops"


def _search_documents(conn: Connection) -> dict[str, list[str]]:
    """The search-document columns of each table of the current schema."""
    # One look at the catalogue for all tables: information_schema answers each question
    # in milliseconds, and a start asked it once per collection.
    documents: dict[str, list[str]] = {}
    for table, column in conn.fetchall(
        "SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
        " AND a.attnum > 0 AND NOT a.attisdropped AND left(a.attname, 9) = '__search_'"
    ):
        documents.setdefault(str(table), []).append(str(column))
    return documents


def _create_search_document(
    conn: Connection, collection: Collection, opclass: str | None, present: list[str]
) -> None:
    table = _quoted(collection.table)
    column = search_column(collection) if search_fields(collection) else ""
    # A document of earlier search fields (its index goes with it).
    for stale in present:
        if stale != column:
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {_quoted(stale)}")
    if not column:
        return
    if column not in present:
        conn.execute(
            # IF NOT EXISTS: another process may have added it since the look above.
            f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {_quoted(column)} TEXT"
            f" GENERATED ALWAYS AS ({_document(collection)}) STORED"
        )
        # Finer statistics estimate substring patterns better (1 % where 0.1 % is true
        # with the default): the planner then walks the sort order less often in vain.
        conn.execute(f"ALTER TABLE {table} ALTER COLUMN {_quoted(column)} SET STATISTICS 1000")
    if opclass is not None:
        name = _quoted(_index_name(collection.table, "trigram", column.removeprefix("__search_")))
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin ({_quoted(column)} {opclass})"
        )


def _create_fts_table(conn: Connection, collection: Collection) -> None:
    fields = search_fields(collection)
    table, index = _quoted(collection.table), _quoted(search_table(collection))
    columns = ", ".join(_quoted(f.name) for f in fields)
    ddl = (
        f"CREATE VIRTUAL TABLE {index} USING fts5({columns}, content='', columnsize=0,"
        " tokenize='trigram case_sensitive 1')"
    )
    triggers = [f"{collection.table}{_SUFFIX}_{event}" for event in _TRIGGERS]
    found = {
        name: (kind, sql)
        for kind, name, sql in conn.fetchall(
            "SELECT type, name, sql FROM sqlite_master WHERE name IN (?, ?, ?, ?)",
            (search_table(collection), *triggers),
        )
    }
    current = found.get(search_table(collection)) == ("table", ddl) and all(
        found.get(trigger, ("", ""))[0] == "trigger" for trigger in triggers
    )
    if fields and current:
        return
    # Missing, partly there or built for other fields: built again from the rows.
    for trigger in triggers:
        conn.execute(f"DROP TRIGGER IF EXISTS {_quoted(trigger)}")
    conn.execute(f"DROP TABLE IF EXISTS {index}")
    if not fields:
        return
    conn.execute(ddl)
    lowered = ", ".join(f"LOWER({_quoted(f.name)})" for f in fields)
    conn.execute(f"INSERT INTO {index} (rowid, {columns}) SELECT rowid, {lowered} FROM {table}")
    new = ", ".join(f"LOWER(new.{_quoted(f.name)})" for f in fields)
    old = ", ".join(f"LOWER(old.{_quoted(f.name)})" for f in fields)
    insert = f"INSERT INTO {index} (rowid, {columns}) VALUES (new.rowid, {new});"
    # A contentless table forgets a row when told the values it was given.
    delete = f"INSERT INTO {index} ({index}, rowid, {columns}) VALUES ('delete', old.rowid, {old});"
    bodies = {"insert": insert, "delete": delete, "update": delete + " " + insert}
    events = {"insert": "INSERT", "delete": "DELETE", "update": f"UPDATE OF {columns}"}
    for event, trigger in zip(_TRIGGERS, triggers, strict=True):
        conn.execute(
            f"CREATE TRIGGER {_quoted(trigger)} AFTER {events[event]} ON {table}"
            f" FOR EACH ROW BEGIN {bodies[event]} END"
        )
