"""Databases for the service under test, made quickly and still new for every test.

Making the tables of every collection, projection and the event store costs more than
most tests do (about a second on PostgreSQL, a tenth of one on SQLite). So a test that
starts the service (the `tracepoint` fixture) gets them ready-made:

- SQLite: a copy of a template file, made once per test worker and shape of the tables.
  A template is a database on which the service was built (`Tracepoint(settings)`) and
  closed, never started: its tables and the rows their creation writes, no event and no
  record.
- PostgreSQL: a schema of a worker's own database in which the service made its tables
  for an earlier test, emptied and checked (see `PostgresDatabases`); one in which the
  test ran DDL (event triggers note it) is kept only if its shape is still the same.

Either way the service under test goes through its whole start-up on it, as on any
restart. It is made when the service is about to start (`prepare`), as only then are its
settings known. Any other use of a database that is still waiting finds none and fails
loudly, rather than quietly using something else.
"""

import secrets
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import psycopg
from pydantic import SecretStr

from application.service.runtime import Tracepoint
from domain.masterdata.references import REFERENCE_COLLECTIONS
from infrastructure.database_url import DatabaseUrl
from infrastructure.settings import Settings

#: The schema the service's tables are in, in the templates and so in every copy.
SCHEMA = "t_service"


def shape(settings: Settings) -> tuple[bool, ...]:
    """What of the settings changes the tables the service makes: the key of a template.

    Were another setting to change them without being named here, the service would find
    tables of another shape in its copy and rebuild them (warning that they changed
    shape): slower, but still what it would make in an empty database.
    """
    return (settings.multi_tenant,)


def with_database(url: str, dbname: str, query: str = "") -> str:
    """The server URL `url` with another database (and query)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + dbname, query, ""))


def create_database(server_url: str, name: str) -> None:
    """Create a database of this test run whose commits do not wait for the disk.

    Waiting for each commit's WAL to reach the disk (`synchronous_commit`, on by default)
    took most of a started service's time on PostgreSQL: a few ms a commit, and the
    truncation that empties a kept schema (see `PostgresDatabases`). Only a crash of the
    server would lose what was committed, and no test crashes the shared server (those
    that stop one run their own: tests/pg_cluster.py, which turns off fsync as well).
    """
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')


def _build(settings: Settings, url: str) -> None:
    """Make the tables these settings' service makes, at `url`, and close again."""
    # With a secret given, the service keeps none of its own in the database.
    secret = SecretStr("template")
    Tracepoint(settings.model_copy(update={"database_url": url, "secret": secret})).close()


class SQLiteDatabases:
    """SQLite files that start as copies of a template file."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._templates: dict[tuple[bool, ...], Path] = {}
        self._waiting: set[str] = set()

    def reserve(self, path: Path) -> str:
        """The URL of a database at `path` that the service's start copies from a template."""
        url = f"sqlite:///{path}"
        self._waiting.add(url)
        return url

    def release(self, url: str) -> None:
        """The test is over: the database is left to the test's temporary directory."""
        self._waiting.discard(url)

    def prepare(self, settings: Settings) -> None:
        """Copy the template of these settings to their database if it is still waiting."""
        url = settings.database_url
        if url not in self._waiting:
            return
        self._waiting.discard(url)
        target = Path(DatabaseUrl.parse(url).path)
        if target.exists():  # something made it first: the service makes its own tables
            return
        shutil.copyfile(self._template(settings), target)

    def _template(self, settings: Settings) -> Path:
        key = shape(settings)
        if key not in self._templates:
            path = self._directory / f"template-{len(self._templates)}.db"
            _build(settings, f"sqlite:///{path}")
            # Closed cleanly, everything is in the main file (no -wal or -journal beside it).
            leftovers = [p for p in path.parent.iterdir() if p.name.startswith(path.name + "-")]
            assert not leftovers, leftovers
            self._templates[key] = path
        return self._templates[key]


#: A description of a schema's tables, columns, indexes, constraints, sequences,
#: triggers, functions and types that leaves out the schema's own name: equal for two
#: schemas of the same shape. `%(schema)s` is the schema, as a literal.
_SHAPE_SQL = """
SELECT md5(string_agg(line, E'\\n' ORDER BY line)) FROM (
  SELECT format('relation %%s %%s %%s %%s %%s', c.relname, c.relkind, c.relpersistence,
                c.relreplident, c.reloptions)
  FROM pg_class c WHERE c.relnamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT format('column %%s %%s %%s %%s %%s %%s %%s %%s %%s', c.relname, a.attnum, a.attname,
                format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attgenerated,
                a.attstattarget, a.attcollation,
                replace(pg_get_expr(d.adbin, d.adrelid), quote_ident(%(schema)s::text) || '.', ''))
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE c.relnamespace = %(schema)s::text::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'index '
         || replace(pg_get_indexdef(i.indexrelid), quote_ident(%(schema)s::text) || '.', '')
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE c.relnamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT format('constraint %%s %%s %%s', c.relname, k.conname,
                replace(pg_get_constraintdef(k.oid), quote_ident(%(schema)s::text) || '.', ''))
  FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid
  WHERE k.connamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT format('sequence %%s %%s %%s %%s %%s', c.relname, s.seqstart, s.seqincrement,
                s.seqmax, s.seqcycle)
  FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
  WHERE c.relnamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT format('trigger %%s %%s %%s', c.relname, t.tgname, t.tgenabled)
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE c.relnamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT format('function %%s(%%s) %%s', p.proname,
                replace(pg_get_function_identity_arguments(p.oid),
                        quote_ident(%(schema)s::text) || '.', ''),
                replace(pg_get_function_result(p.oid), quote_ident(%(schema)s::text) || '.', ''))
  FROM pg_proc p
  WHERE p.pronamespace = %(schema)s::text::regnamespace
  UNION ALL
  SELECT 'type ' || t.typname FROM pg_type t
  WHERE t.typnamespace = %(schema)s::text::regnamespace AND t.typrelid = 0
) AS shape(line)
"""

#: Tables that may not be as new ones are: with rows, or rows once, or planner statistics.
_USED_SQL = """
SELECT c.oid::regclass::text FROM pg_class c
WHERE c.relnamespace = %(schema)s::text::regnamespace AND c.relkind IN ('r', 'p')
  AND (pg_relation_size(c.oid) > 0 OR c.relpages <> 0 OR c.reltuples <> -1
       OR EXISTS (SELECT 1 FROM pg_statistic s WHERE s.starelid = c.oid))
"""


#: Whether a table (`{table}`, its qualified name, also the parameter) holds a row: then
#: the table, its pages and its largest index's.
_HOLDING_SQL = """
SELECT %s, pg_relation_size(%s::regclass) / 8192,
  coalesce((SELECT max(pg_relation_size(i.indexrelid)) FROM pg_index i
            WHERE i.indrelid = %s::regclass), 0) / 8192
WHERE EXISTS (SELECT FROM {table})"""

#: The tables of a schema with planner statistics.
_ANALYSED_SQL = """
SELECT DISTINCT c.relname FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
WHERE c.relnamespace = %(schema)s::text::regnamespace
"""

#: A table of fewer pages, and no index of more, is emptied by DELETE (see `_empty`).
_SMALL_PAGES = 10

#: Every DDL command run in the database, noted by event triggers with the schema it ran
#: in: a schema none ran in since it was handed out has its shape still, and comparing
#: its shape (~15 ms of catalog reading a test) is skipped. They need a superuser; else
#: every schema's shape is compared.
_DDL_NOTES = (
    'CREATE TABLE "extensions".ddl_noted (schema_name TEXT, tag TEXT, identity TEXT)',
    """CREATE FUNCTION "extensions".note_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO "extensions".ddl_noted
      SELECT schema_name, command_tag, object_identity FROM pg_event_trigger_ddl_commands();
    END $$""",
    """CREATE FUNCTION "extensions".note_drop() RETURNS event_trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO "extensions".ddl_noted
      SELECT schema_name, 'DROP', object_identity FROM pg_event_trigger_dropped_objects();
    END $$""",
    'CREATE EVENT TRIGGER note_ddl ON ddl_command_end EXECUTE FUNCTION "extensions".note_ddl()',
    'CREATE EVENT TRIGGER note_drop ON sql_drop EXECUTE FUNCTION "extensions".note_drop()',
)
#: What DDL ran in a schema, its own name in the identities replaced by `{schema}`.
_NOTED_SQL = """
SELECT tag, replace(identity, quote_ident(%(schema)s::text) || '.', '{schema}.')
FROM "extensions".ddl_noted WHERE schema_name = %(schema)s
"""


#: The projection runner's bookkeeping. A freshly built schema has rows in these (each
#: projection's shape, and position 0); emptying restores those rows, so a kept schema is
#: what a new service leaves behind, and a table of another shape is rebuilt as it would be.
BOOKKEEPING = ("projection_positions", "projection_shapes", "projection_builds")
#: The reference lists' tables (`ref_country`, …), filled from the lists the service ships,
#: not from the log: a kept schema keeps them as built, unless a test changed their rows,
#: (then they are emptied, and the next start fills them again).
REFERENCE_TABLES = frozenset(c.table for c in REFERENCE_COLLECTIONS)
_KEPT_ROWS = frozenset(BOOKKEEPING) | REFERENCE_TABLES


class PostgresDatabases:
    """Schemas for the service under test in one PostgreSQL database of this worker.

    A schema the service made its tables in is used again: after its test it is emptied
    (small tables by DELETE, larger ones by TRUNCATE; sequences, planner statistics and
    page counts reset: see `_empty`) and kept for the next test of the same shape, unless the
    test changed a table, an index or anything else of the schema's shape: then it is
    dropped. Before a test gets a kept schema, it is checked to be empty.

    (A database per test, `CREATE DATABASE … TEMPLATE`, costs less to make, but dropping
    a database makes PostgreSQL take a checkpoint and wait for it: seconds each on a
    busy machine, more than the tests gained.)
    """

    def __init__(self, server_url: str, name: str) -> None:
        self._server_url = server_url
        self._name = name
        create_database(server_url, name)
        self._url = with_database(server_url, name)
        self._conn = psycopg.connect(self._url, autocommit=True)
        # In a schema of its own: the service's start would put it in the schema of
        # the first test, and a dropped schema would take it and other schemas' indexes.
        self._conn.execute('CREATE SCHEMA "extensions"')
        self._conn.execute('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA "extensions"')
        self._notes_ddl = self._note_ddl()
        #: Per shape, the DDL every start of a service runs again without changing the
        #: shape (eventsourcing replaces its insert function).
        self._restated: dict[tuple[bool, ...], set[tuple[str, str]]] = {}
        self._shapes: dict[tuple[bool, ...], str] = {}
        self._kept: dict[tuple[bool, ...], list[str]] = {}
        self._waiting: dict[str, str] = {}  # URL: schema
        self._made: dict[str, tuple[bool, ...]] = {}  # schema: shape
        self._bookkeeping: dict[tuple[bool, ...], dict[str, list[tuple[object, ...]]]] = {}
        self._references: dict[tuple[bool, ...], str] = {}
        self._count = 0

    def reserve(self) -> str:
        """The URL of a schema that the service's start makes (or takes from the kept)."""
        schema = "t_" + secrets.token_hex(6)
        url = f"{self._url}?schema={schema}"
        self._waiting[url] = schema
        return url

    def prepare(self, settings: Settings) -> None:
        """Make the schema of these settings if it is still waiting: a kept one of their
        shape, renamed, or else a new, empty one."""
        schema = self._waiting.pop(settings.database_url, None)
        if schema is None:
            return
        key = shape(settings)
        if key not in self._shapes:
            self._build(settings)
        kept = self._kept[key]
        if kept:
            name = kept.pop()
            used = [
                table
                for (table,) in self._conn.execute(_USED_SQL, {"schema": name}).fetchall()
                if table.rpartition(".")[2] not in _KEPT_ROWS
            ]
            holding = self._holding_rows(used)
            assert not holding, f"kept schema {name} is not empty: {sorted(holding)}"
            analysed = self._conn.execute(_ANALYSED_SQL, {"schema": name}).fetchall()
            assert not analysed, f"kept schema {name} has planner statistics: {analysed}"
            bookkeeping = self._read_bookkeeping(name)
            assert bookkeeping == self._bookkeeping[key], f"kept schema {name}: {bookkeeping}"
            self._conn.execute(f'ALTER SCHEMA "{name}" RENAME TO "{schema}"')
        else:
            self._conn.execute(f'CREATE SCHEMA "{schema}"')
        self._forget_ddl(schema)
        self._made[schema] = key

    def _note_ddl(self) -> bool:
        """Whether the database now notes DDL (`_DDL_NOTES`): only a superuser may."""
        try:
            with self._conn.transaction():
                for statement in _DDL_NOTES:
                    self._conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege:
            return False
        return True

    def _noted_ddl(self, schema: str) -> set[tuple[str, str]]:
        return {
            (str(tag), str(identity))
            for tag, identity in self._conn.execute(_NOTED_SQL, {"schema": schema})
        }

    def _forget_ddl(self, schema: str) -> None:
        if self._notes_ddl:
            self._conn.execute(
                'DELETE FROM "extensions".ddl_noted WHERE schema_name = %s', (schema,)
            )

    def _may_have_changed(self, schema: str, key: tuple[bool, ...]) -> bool:
        """Whether DDL that can change the shape ran in the schema (always, unless noted)."""
        if not self._notes_ddl:
            return True
        return not self._noted_ddl(schema) <= self._restated[key]

    def _build(self, settings: Settings) -> None:
        """A first schema of this shape: made by the service, kept empty."""
        key = shape(settings)
        name = self._new_name()
        self._conn.execute(f'CREATE SCHEMA "{name}"')
        _build(settings, f"{self._url}?schema={name}")
        # A second build on the same tables shows what every start states again.
        self._forget_ddl(name)
        _build(settings, f"{self._url}?schema={name}")
        self._restated[key] = self._noted_ddl(name) if self._notes_ddl else set()
        self._forget_ddl(name)
        self._shapes[key] = self._shape(name)
        self._bookkeeping[key] = self._read_bookkeeping(name)
        self._references[key] = self._read_references(name)
        self._kept[key] = []
        self._empty(name, key)
        self._kept[key].append(name)

    def release(self, url: str) -> None:
        """The test is over: keep its schema, emptied, or drop it."""
        schema = self._waiting.pop(url, None) or parse_qs(urlsplit(url).query)["schema"][0]
        key = self._made.pop(schema, None)
        if key is None:
            return
        try:
            if not self._may_have_changed(schema, key) or self._shape(schema) == self._shapes[key]:
                self._empty(schema, key)
                self._forget_ddl(schema)
                name = self._new_name()
                self._conn.execute(f'ALTER SCHEMA "{schema}" RENAME TO "{name}"')
                self._kept[key].append(name)
                return
        except psycopg.Error:
            pass  # e.g. still locked by a service the test left open: drop it instead
        self._conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        self._forget_ddl(schema)

    def _new_name(self) -> str:
        self._count += 1
        return f"kept_{self._count}"

    def _shape(self, schema: str) -> str:
        row = self._conn.execute(_SHAPE_SQL, {"schema": schema}).fetchone()
        assert row is not None
        return str(row[0])

    def _read_bookkeeping(self, schema: str) -> dict[str, list[tuple[object, ...]]]:
        return {
            table: self._conn.execute(f'SELECT * FROM "{schema}".{table} ORDER BY 1').fetchall()
            for table in BOOKKEEPING
        }

    def _read_references(self, schema: str) -> str:
        """A digest of the reference tables' rows."""
        digests = " || ".join(
            f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), ''))"
            f' FROM "{schema}"."{table}" t)'
            for table in sorted(REFERENCE_TABLES)
        )
        row = self._conn.execute(f"SELECT md5({digests})").fetchone()
        assert row is not None
        return str(row[0])

    def _empty(self, schema: str, key: tuple[bool, ...]) -> None:
        """Make the schema's tables, sequences and statistics as new, with the runner's
        bookkeeping as a new service leaves it."""
        with self._conn.transaction():
            self._conn.execute("SET LOCAL lock_timeout = '10s'")
            tables = [row[0] for row in self._conn.execute(_USED_SQL, {"schema": schema})]
            if self._read_references(schema) == self._references[key]:
                tables = [t for t in tables if t.rpartition(".")[2] not in REFERENCE_TABLES]
            # A few rows that are written back at once: deleting them costs less than
            # the new files a TRUNCATE makes (milliseconds a table).
            tables = [t for t in tables if t.rpartition(".")[2] not in BOOKKEEPING]
            holding = self._holding_rows(tables)
            # TRUNCATE gives a table, its TOAST table and each index new files, which
            # took ~1 ms each on this host's disk (~0.2 s for a test that captured a few
            # events). A table of a few pages and small indexes is emptied in place: one
            # under 10 pages, never vacuumed, looks to the planner as a new one does (it
            # takes either for 10 pages), and once its dead rows make it larger it is
            # truncated. No table of the service has a foreign key or a trigger.
            large = [t for t, sizes in holding.items() if max(sizes) >= _SMALL_PAGES]
            small = [t for t in holding if t not in large]
            if large:
                self._conn.execute(f"TRUNCATE {', '.join(large)}")
            if small:
                deletes = "".join(f"DELETE FROM {table}; " for table in small)
                self._conn.execute(f"DO $$ BEGIN {deletes}END $$")
            # What TRUNCATE resets, also of a table whose rows its test deleted.
            self._conn.execute(
                "UPDATE pg_class SET relpages = 0, reltuples = -1, relallvisible = 0"
                " WHERE oid = ANY(%s::regclass[]::oid[])",
                ([t for t in tables if t not in large],),
            )
            # In place too, where ALTER SEQUENCE … RESTART makes a new file.
            self._conn.execute(
                "SELECT setval(format('%%I.%%I', schemaname, sequencename), start_value, false)"
                " FROM pg_sequences WHERE schemaname = %s AND last_value IS NOT NULL",
                (schema,),
            )
            self._conn.execute(
                "DELETE FROM pg_statistic WHERE starelid IN"
                " (SELECT oid FROM pg_class WHERE relnamespace = %s::text::regnamespace)",
                (schema,),
            )
            for table, rows in self._bookkeeping[key].items():
                self._conn.execute(f'DELETE FROM "{schema}".{table}')
                if rows:
                    # In one trip (executemany pipelines its statements).
                    values = ", ".join(["%s"] * len(rows[0]))
                    self._conn.cursor().executemany(
                        f'INSERT INTO "{schema}".{table} VALUES ({values})', rows
                    )
        # After the commit, which counts the deleted rows as dead: counted, they would
        # send autovacuum to the kept tables, to vacuum and analyse them between tests.
        self._conn.execute(
            "SELECT pg_stat_reset_single_table_counters(oid) FROM pg_class"
            " WHERE relnamespace = %s::text::regnamespace",
            (schema,),
        )

    def _holding_rows(self, tables: list[str]) -> dict[str, tuple[int, int]]:
        """Of `tables` (qualified names), those holding a row: with their pages and their
        largest index's."""
        if not tables:
            return {}
        query = " UNION ALL ".join(_HOLDING_SQL.format(table=table) for table in tables)
        rows = self._conn.execute(query, [t for table in tables for t in (table,) * 3]).fetchall()
        return {str(table): (int(pages), int(index)) for table, pages, index in rows}

    def close(self) -> None:
        """Close the connection; the database is dropped with the run's others at the end
        of the run (`drop_databases`)."""
        self._conn.close()


def drop_databases(server_url: str, prefix: str) -> None:
    """Drop every database whose name starts with `prefix`, all at once.

    Each drop makes PostgreSQL take a checkpoint and wait for it; drops that wait
    together share one, and once no test writes any more there is little to write.
    """
    with psycopg.connect(server_url, autocommit=True) as admin:
        names = [
            str(row[0])
            for row in admin.execute(
                "SELECT datname FROM pg_database WHERE starts_with(datname, %s)", (prefix,)
            )
        ]

    def drop(name: str) -> None:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    with ThreadPoolExecutor(max(1, len(names))) as pool:
        list(pool.map(drop, names))
