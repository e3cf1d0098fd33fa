"""Search indexes: `search` and the case-insensitive substring filters answer from them
exactly what they answer without them, on both backends, through inserts, updates,
deletes, rebuilds and changes of the search fields."""

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from domain.collections.filters import parse_filter
from domain.collections.item_query import ItemQuery
from domain.collections.schema import Collection, Field, FieldType, Schema
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from projections.items.reader import ItemReader
from projections.items.records import RecordsProjection, collection_ddl
from projections.items.search import TextIndex, compile_search

T = FieldType
NOTES = Collection(
    "notes",
    "id",
    (
        Field("id", T.INTEGER),
        Field("title", T.STRING),
        Field("body", T.TEXT),
        Field("code", T.STRING),
        Field("secret", T.STRING, concealed=True),
        Field("n", T.INTEGER),
        Field("ref", T.UUID),
    ),
)
# The same collection in a table without a search index: the answers to compare with.
PLAIN = replace(NOTES, table="plain_notes")

VALUES = [
    "Hello World",
    "hello_world",
    "50% off",
    "Ünïcode Straße",
    "ÜNÏCODE STRASSE",
    "ΟΔΟΣ σίγμα",
    "İstanbul",
    'quote "this"',
    "it's",
    "back\\slash",
    "  spaced  out  ",
    "",
    None,
    "abc",
    "ABCabcABC",
    "x" * 300 + "needle",
    "tab\there",
    "new\nline",
    "emoji 🎉 party",
    "日本語のテキスト",
]
UUID = "00000000-0000-4000-8000-000000000007"
TERMS = [
    "hello",
    "HELLO",
    "lo wo",
    "o_w",
    "50%",
    "% o",
    "ünï",
    "ÜNÏ",
    "straße",
    "STRASSE",
    "σίγ",
    "ΟΔΟ",
    "οδο",
    "İst",
    "ist",
    '"this"',
    "t's",
    "k\\s",
    "spaced  out",
    "needle",
    "xxneedle",
    "tab\th",
    "w\nl",
    "🎉 p",
    "日本語",
    "本語の",
    "abc",
    "cab",
    "c-0",
    "C-01",
    "ab",
    "A",
    "zzz",
    "secret",
    "7",
    UUID,
    "\x1fse",
    "9\x1fsep",
    # Across two fields in PostgreSQL's search document (body, then code), in none.
    "world\x1fc-0",
]


def rows(values: list[str | None]) -> list[tuple[Any, ...]]:
    count = len(values)
    return [
        (
            index,
            value,
            values[(index + 7) % count],
            # The character that joins fields in PostgreSQL's search document.
            f"C-{index:03d}" + ("\x1fsep" if index == 19 else ""),
            "secret hello",
            index,
            UUID if index == 7 else None,
        )
        for index, value in enumerate(values)
    ]


def insert(database: Database, collection: Collection, values: list[tuple[Any, ...]]) -> None:
    marks = ", ".join("?" * len(collection.fields))
    with database.transaction() as conn:
        conn.executemany(f'INSERT INTO "{collection.table}" VALUES ({marks})', values)


def create_plain(database: Database, collection: Collection) -> None:
    with database.transaction() as conn:
        for statement in collection_ddl(collection):
            conn.execute(statement)


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    database = Database(DatabaseUrl.parse(database_url), pool_size=2)
    try:
        with database.transaction() as conn:
            RecordsProjection((NOTES,)).create_tables(conn)
        create_plain(database, PLAIN)
        insert(database, NOTES, rows(VALUES))
        insert(database, PLAIN, rows(VALUES))
        yield database
    finally:
        database.close()


def found(database: Database, collection: Collection, query: ItemQuery, **options: Any) -> set[int]:
    reader = ItemReader(database, Schema((collection,)))
    items = reader.list(collection.name, replace(query, fields=("id",), limit=None), **options)
    assert reader.count(collection.name, filter=query.filter, search=query.search, **options) == (
        len(items)
    )
    return {item["id"] for item in items}


def assert_same_answers(
    database: Database, filtered: tuple[str, ...] = ("title", "body"), **options: Any
) -> None:
    for term in TERMS:
        query = ItemQuery(search=term)
        assert found(database, NOTES, query, **options) == found(
            database, PLAIN, query, **options
        ), term
        for op in ("_icontains", "_istarts_with", "_iends_with", "_nicontains", "_eq"):
            for field in filtered:
                query = ItemQuery(filter=parse_filter({field: {op: term}}))
                indexed = found(database, NOTES, query, **options)
                assert indexed == found(database, PLAIN, query, **options), (term, op, field)
    for value in VALUES:
        if value:
            query = ItemQuery(filter=parse_filter({filtered[-1]: {"_eq": value}}))
            assert found(database, NOTES, query, **options) == found(
                database, PLAIN, query, **options
            )


def test_search_and_substring_filters_answer_as_without_the_index(database: Database) -> None:
    assert found(database, NOTES, ItemQuery(search="hello")) == {0, 1, 13, 14}
    assert found(database, NOTES, ItemQuery(search="straße")) == {3, 16}
    assert found(database, NOTES, ItemQuery(search="world\x1fc-0")) == set()
    assert found(database, NOTES, ItemQuery(search="9\x1fsep")) == {19}
    title = parse_filter({"title": {"_eq": "Ünïcode Straße"}})
    assert found(database, NOTES, ItemQuery(filter=title)) == {3}
    assert_same_answers(database)


def test_search_through_the_index_looks_at_readable_fields_only(database: Database) -> None:
    allowed = {"notes": frozenset({"id", "title", "n"})}
    assert found(database, NOTES, ItemQuery(search="hello"), allowed_fields=allowed) == {0, 1}
    assert_same_answers(database, ("title",), allowed_fields=allowed)


def test_the_index_follows_updates_and_deletes(database: Database) -> None:
    for collection in (NOTES, PLAIN):
        with database.transaction() as conn:
            table = collection.table
            conn.execute(f'UPDATE "{table}" SET title = ? WHERE id = ?', ("Brand NEW title", 0))
            conn.execute(f'UPDATE "{table}" SET body = NULL WHERE id IN (1, 2, 3)')
            conn.execute(f'UPDATE "{table}" SET n = 99 WHERE id = 4')
            conn.execute(f'DELETE FROM "{table}" WHERE id IN (5, 6)')
        insert(database, collection, [(50, "Late hello", "ΟΔΟΣ", "C-050", None, 50, None)])
    assert found(database, NOTES, ItemQuery(search="new tit")) == {0}
    assert found(database, NOTES, ItemQuery(search="hello")) == {1, 13, 14, 50}
    assert_same_answers(database)


def test_a_rebuild_leaves_a_working_index(database: Database) -> None:
    projection = RecordsProjection((NOTES,))
    with database.transaction() as conn:
        projection.drop_tables(conn)
        projection.create_tables(conn)
    assert found(database, NOTES, ItemQuery(search="hello")) == set()
    insert(database, NOTES, rows(VALUES))
    assert found(database, NOTES, ItemQuery(search="hello")) == {0, 1, 13, 14}
    assert_same_answers(database)


def test_an_index_made_for_a_table_with_rows_holds_them(database_url: str) -> None:
    database = Database(DatabaseUrl.parse(database_url), pool_size=2)
    try:
        create_plain(database, NOTES)
        create_plain(database, PLAIN)
        insert(database, NOTES, rows(VALUES))
        insert(database, PLAIN, rows(VALUES))
        with database.transaction() as conn:
            RecordsProjection((NOTES,)).create_tables(conn)
        assert found(database, NOTES, ItemQuery(search="straße")) == {3, 16}
        assert_same_answers(database)
    finally:
        database.close()


def test_an_index_of_other_search_fields_is_built_again(database: Database) -> None:
    # `body` was not searched before: the index is built again when it is.
    earlier = replace(
        NOTES,
        fields=tuple(replace(f, type=T.JSON) if f.name == "body" else f for f in NOTES.fields),
    )
    for collection in (earlier, NOTES):
        with database.transaction() as conn:
            RecordsProjection((collection,)).create_tables(conn)
    assert found(database, NOTES, ItemQuery(search="needle")) == {8, 15}
    assert_same_answers(database)
    with database.transaction() as conn:
        if conn.dialect.name == "postgresql":
            indexes = conn.fetchall(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'notes'"
                " AND indexname LIKE 'notes!_!_trigram!_%' ESCAPE '!'"
            )
            assert len(indexes) == 1
            columns = conn.fetchall(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'notes'"
                " AND table_schema = current_schema() AND column_name LIKE '!_!_search%' ESCAPE '!'"
            )
            assert len(columns) == 1


def plan(database: Database, term: str, **options: Any) -> str:
    with database.transaction() as conn:
        sql, params = compile_search(
            term, NOTES, text_index=TextIndex(conn, lambda c: True), **options
        )
        if conn.dialect.name == "postgresql":
            conn.execute("SET LOCAL enable_seqscan = off")
            explained = conn.fetchall(f"EXPLAIN SELECT t.id FROM notes AS t WHERE {sql}", params)
        else:
            explained = [
                row[-1:]
                for row in conn.fetchall(
                    f"EXPLAIN QUERY PLAN SELECT t.id FROM notes AS t WHERE {sql}", params
                )
            ]
    return "\n".join(str(row[0]) for row in explained)


def test_search_uses_the_index_for_terms_of_three_characters(database: Database) -> None:
    index_used = (
        "Bitmap Index Scan on notes__trigram"
        if database.dialect.name == "postgresql"
        else "VIRTUAL TABLE INDEX"
    )
    assert index_used in plan(database, "hello")
    assert index_used in plan(database, "hello", fields=frozenset({"title"}))
    assert index_used not in plan(database, "he")


def test_sqlite_reads_search_and_substring_filters_from_the_index(database: Database) -> None:
    if database.dialect.name != "sqlite":
        pytest.skip("PostgreSQL's index is seen in the plan (test above)")
    with database.transaction() as conn:
        # An index that forgot every row: what it answers, the reader answers.
        conn.execute("INSERT INTO notes__search (notes__search) VALUES ('delete-all')")
    assert found(database, NOTES, ItemQuery(search="hello")) == set()
    assert (
        found(database, NOTES, ItemQuery(filter=parse_filter({"title": {"_icontains": "hel"}})))
        == set()
    )
    # Too short for trigrams: every row is read.
    assert found(database, NOTES, ItemQuery(search="he")) == {0, 1, 9, 13, 14, 16}


def test_search_compares_numbers_and_uuids_through_indexes(database: Database) -> None:
    assert "notes__eq_n" in plan(database, "777")
    assert "notes__eq_ref" in plan(database, UUID)


def page(database: Database, collection: Collection, query: ItemQuery) -> list[int]:
    items = ItemReader(database, Schema((collection,))).list(collection.name, query)
    return [item["id"] for item in items]


def test_pages_in_index_order_answer_alike_for_common_and_rare_terms(database: Database) -> None:
    # 1,500 rows hold "common": more than the index is asked for (1,000) before a page
    # in key order is read by walking the key instead.
    extra = [
        (1000 + n, f"Common thing {n}", "plain body", f"X-{n}", None, n, None) for n in range(1500)
    ]
    for collection in (NOTES, PLAIN):
        insert(database, collection, extra)
    queries = [
        ItemQuery(search="common", limit=10),
        ItemQuery(search="common", limit=10, offset=1495),
        ItemQuery(search="thing 149", limit=10, sort=(("id", True),)),
        ItemQuery(search="hello", limit=2),
        ItemQuery(filter=parse_filter({"title": {"_icontains": "COMMON"}}), limit=5),
        ItemQuery(filter=parse_filter({"body": {"_eq": "plain body"}}), limit=5, offset=7),
        ItemQuery(filter=parse_filter({"title": {"_eq": "Common thing 7"}}), limit=5),
        ItemQuery(filter=parse_filter({"code": {"_eq": "X-7"}}), search="common", limit=5),
    ]
    for query in queries:
        assert page(database, NOTES, query) == page(database, PLAIN, query), query
    assert page(database, NOTES, ItemQuery(search="common", limit=3)) == [1000, 1001, 1002]
    assert page(database, NOTES, queries[6]) == [1007]
