"""`deep` and `alias` over read-model tables, on both backends: which related items each
relation reads, and keys that read another field."""

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.collections.item_query import ItemQuery, parse_query
from domain.collections.query_errors import FieldForbidden, QueryError
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from projections.items.reader import ItemReader
from tests.items.domain.test_deep_parameters import JSON_VALUES, NAMES
from tests.items.test_queries import ADA, BOB, DEE, SCHEMA, create_tables


@pytest.fixture
def reader(database_url: str) -> Iterator[ItemReader]:
    database = Database(DatabaseUrl.parse(database_url), pool_size=2)
    try:
        create_tables(database)
        yield ItemReader(database, SCHEMA)
    finally:
        database.close()


def read(reader: ItemReader, collection: str, *params: tuple[str, str], **options: Any) -> Any:
    """The items a URL query reads, by their `name`."""
    items = reader.list(collection, parse_query(list(params)), **options)
    return {item.get("name"): item for item in items}


def teams(reader: ItemReader, *params: tuple[str, str], **options: Any) -> Any:
    return read(reader, "teams", ("fields", "name,members.name"), *params, **options)


def member_names(found: Any) -> dict[str, list[str]]:
    return {team: [m["name"] for m in item["members"]] for team, item in found.items()}


def test_deep_filters_the_items_of_a_to_many_relation(reader: ItemReader) -> None:
    found = teams(reader, ("deep[members][_filter][age][_gt]", "30"))
    assert member_names(found) == {"Red": ["Ada", "Dee"], "Blue": [], "Green": []}
    found = teams(reader, ("deep[members][_filter][name][_eq]", "Dee"))
    assert member_names(found)["Red"] == ["Dee"]


def test_deep_sorts_and_limits_each_parents_items(reader: ItemReader) -> None:
    found = teams(reader, ("deep", '{"members": {"_sort": "-name", "_limit": 1}}'))
    assert member_names(found) == {"Red": ["Dee"], "Blue": ["Bob"], "Green": []}


@pytest.mark.parametrize("paging", [("deep[members][_offset]", "1"), ("deep[members][_page]", "2")])
def test_deep_pages_through_each_parents_items(reader: ItemReader, paging: tuple[str, str]) -> None:
    found = teams(reader, ("deep[members][_sort]", "name"), ("deep[members][_limit]", "1"), paging)
    assert member_names(found) == {"Red": ["Dee"], "Blue": [], "Green": []}


def test_deep_sorts_and_filters_across_relations_of_the_related_items(
    reader: ItemReader,
) -> None:
    found = read(
        reader,
        "authors",
        ("fields", "name,books.title"),
        ("deep[books][_sort]", "-author.name,-pages"),
        ("deep[books][_filter][author][team][name][_eq]", "Red"),
    )
    assert [book["title"] for book in found["Ada"]["books"]] == ["Advanced", "Intro"]
    assert found["Bob"]["books"] == []


def test_deep_searches_the_items_of_a_relation(reader: ItemReader) -> None:
    found = teams(reader, ("deep[members][_search]", "upper"))
    assert member_names(found)["Red"] == ["Dee"]


def test_deep_applies_to_a_relation_read_as_keys(reader: ItemReader) -> None:
    found = read(reader, "teams", ("fields", "name,members"), ("deep[members][_sort]", "-name"))
    assert found["Red"]["members"] == [DEE, ADA]


def test_deep_nests_by_relation_name(reader: ItemReader) -> None:
    deep = '{"members": {"books": {"_filter": {"pages": {"_gt": 200}}}}}'
    found = read(
        reader, "teams", ("fields", "name,members.name,members.books.title"), ("deep", deep)
    )
    red = {m["name"]: m["books"] for m in found["Red"]["members"]}
    assert red == {"Ada": [{"title": "Advanced"}], "Dee": []}


def test_deep_on_a_many_to_one_relation_reads_null_where_the_item_fails_it(
    reader: ItemReader,
) -> None:
    found = read(
        reader, "authors", ("fields", "name,team.name"), ("deep[team][_filter][name]", "Blue")
    )
    assert found["Bob"]["team"] == {"name": "Blue"}
    assert found["Ada"]["team"] is None


def test_to_many_relations_read_a_hundred_items_unless_deep_sets_a_limit(
    reader: ItemReader, database_url: str
) -> None:
    database = Database(DatabaseUrl.parse(database_url), pool_size=1)
    try:
        with database.transaction() as conn:
            conn.executemany(
                'INSERT INTO "books" VALUES (?, ?, ?, ?)',
                [(100 + n, f"Book {n}", BOB, n) for n in range(150)],
            )
    finally:
        database.close()
    fields = ("fields", "name,books")
    assert len(read(reader, "authors", fields)["Bob"]["books"]) == 100
    unlimited = read(reader, "authors", fields, ("deep[books][_limit]", "-1"))
    assert len(unlimited["Bob"]["books"]) == 151


def test_an_alias_reads_one_relation_twice_with_two_deep_filters(reader: ItemReader) -> None:
    found = read(
        reader,
        "teams",
        ("fields", "name,elders.name,members.name"),
        ("alias[elders]", "members"),
        ("deep[elders][_filter][age][_gte]", "50"),
    )
    assert [m["name"] for m in found["Red"]["elders"]] == ["Dee"]
    assert [m["name"] for m in found["Red"]["members"]] == ["Ada", "Dee"]


def test_an_alias_reads_a_plain_field_under_another_key(reader: ItemReader) -> None:
    found = read(reader, "teams", ("fields", "name,town"), ("alias", '{"town": "city"}'))
    assert found["Red"] == {"name": "Red", "town": "Oslo"}


def test_an_alias_inside_deep_names_a_key_of_the_related_items(reader: ItemReader) -> None:
    found = read(
        reader,
        "teams",
        ("fields", "name,members.called"),
        ("deep[members][_alias][called]", "name"),
    )
    assert found["Red"]["members"] == [{"called": "Ada"}, {"called": "Dee"}]


NO_AGE = {"teams": frozenset({"*"}), "authors": frozenset({"id", "name", "team"})}


@pytest.mark.parametrize(
    "deep",
    [
        '{"members": {"_filter": {"age": {"_gt": 1}}}}',
        '{"members": {"_sort": "age"}}',
        '{"members": {"mentor": {}}}',
    ],
)
def test_a_field_the_caller_may_not_read_is_forbidden_in_deep(
    reader: ItemReader, deep: str
) -> None:
    with pytest.raises(FieldForbidden):
        teams(reader, ("deep", deep), allowed_fields=NO_AGE)


def test_an_alias_of_a_field_the_caller_may_not_read_is_forbidden(reader: ItemReader) -> None:
    with pytest.raises(FieldForbidden, match='"age"'):
        read(
            reader,
            "authors",
            ("fields", "name,years"),
            ("alias[years]", "age"),
            allowed_fields=NO_AGE,
        )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ([("deep[name][_limit]", "1")], '"deep" applies to relations'),
        ([("alias[name]", "city")], 'The alias "name" is a field of teams already'),
        ([("deep[members][_sort]", "books.title")], "to-many relation"),
        ([("deep[members][_filter][age][_contains]", "1")], '"_contains"'),
    ],
)
def test_a_deep_or_alias_that_does_not_fit_the_schema_is_a_query_error(
    reader: ItemReader, params: list[tuple[str, str]], message: str
) -> None:
    with pytest.raises(QueryError, match=message):
        read(reader, "teams", ("fields", "name"), *params)


def test_an_unknown_relation_in_deep_is_forbidden(reader: ItemReader) -> None:
    with pytest.raises(FieldForbidden, match='"nope"'):
        read(reader, "teams", ("deep[nope][_limit]", "1"))


def test_a_query_without_deep_reads_as_before(reader: ItemReader) -> None:
    found = reader.list("teams", ItemQuery(fields=("name", "members.name"), limit=None))
    assert [m["name"] for m in found[0]["members"]] == ["Ada", "Dee"]
    assert found[1]["members"] == [{"name": "Bob"}]
    assert BOB not in (m.get("id") for m in found[0]["members"])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(deep=JSON_VALUES, alias=JSON_VALUES, fields=st.lists(NAMES, max_size=3))
def test_random_deep_and_alias_read_items_or_are_refused_as_query_errors(
    reader: ItemReader, deep: Any, alias: Any, fields: list[str]
) -> None:
    params = [("deep", json.dumps(deep)), ("alias", json.dumps(alias))]
    params += [("fields", f"name,{name}") for name in fields]
    with contextlib.suppress(QueryError, FieldForbidden):
        reader.list("teams", parse_query(params))
