"""Item queries as SQL: the Directus query language over read-model tables, on both backends."""

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from domain.collections.filters import parse_filter
from domain.collections.item_query import ItemQuery, parse_query
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema
from domain.collections.selection import CONCEALED
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from projections.items.reader import ItemReader
from projections.items.records import RecordsProjection

T = FieldType

TEAMS = Collection(
    "teams",
    "id",
    (Field("id", T.INTEGER), Field("name", T.STRING), Field("city", T.STRING)),
    aliases=(Alias("members", "authors", "team"),),
)
AUTHORS = Collection(
    "authors",
    "id",
    (
        Field("id", T.UUID),
        Field("name", T.STRING),
        Field("bio", T.TEXT),
        Field("age", T.INTEGER),
        Field("rating", T.FLOAT),
        Field("active", T.BOOLEAN),
        Field("joined", T.DATETIME),
        Field("settings", T.JSON),
        Field("team", T.INTEGER, relation="teams"),
        Field("mentor", T.UUID, relation="authors"),
        Field("password", T.HASH, concealed=True),
        Field("token", T.STRING, concealed=True),
    ),
    aliases=(Alias("books", "books", "author"),),
    table="test_authors",
    sort_field="name",
)
BOOKS = Collection(
    "books",
    "id",
    (
        Field("id", T.INTEGER),
        Field("title", T.STRING),
        Field("author", T.UUID, relation="authors"),
        Field("pages", T.INTEGER),
    ),
)
SCHEMA = Schema((TEAMS, AUTHORS, BOOKS))


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


ADA, BOB, CY, DEE, EVE = (uid(n) for n in range(1, 6))


def author(key: str, name: str, **values: Any) -> tuple[Any, ...]:
    """A row of the authors table, in column order; unnamed columns are NULL."""
    row = {"id": key, "name": name, **values}
    return tuple(row.get(field.name) for field in AUTHORS.fields)


ROWS: dict[str, list[tuple[Any, ...]]] = {
    "teams": [(1, "Red", "Oslo"), (2, "Blue", None), (3, "Green", "Rome")],
    "authors": [
        author(
            ADA,
            "Ada",
            bio="Counts 50% of it",
            age=36,
            rating=4.5,
            active=1,
            joined="2024-01-10T08:00:00.000Z",
            settings='{"theme": "dark"}',
            team=1,
            password="$argon2id$x",
            token="tok-a",
        ),
        author(
            BOB,
            "Bob",
            bio="likes_snake_case",
            age=25,
            rating=3.0,
            active=0,
            joined="2024-03-01T12:00:00.000Z",
            team=2,
            mentor=ADA,
        ),
        author(CY, "Cy", mentor=ADA),
        author(
            DEE,
            "Dee",
            bio="UPPER and lower",
            age=51,
            rating=2.25,
            active=1,
            joined="2023-12-31T23:59:59.999Z",
            settings="[1, 2]",
            team=1,
            mentor=BOB,
        ),
        # Eve's team 9 does not exist.
        author(
            EVE,
            "Eve",
            bio="",
            age=0,
            rating=0.0,
            active=0,
            joined="2024-01-10T08:00:00.001Z",
            team=9,
            token="",
        ),
    ],
    "books": [
        (1, "Intro", ADA, 100),
        (2, "Advanced", ADA, 300),
        (3, "Notes", BOB, 50),
        (4, "Orphan", None, 10),
    ],
}


def create_tables(database: Database) -> None:
    """The tables as the records projection makes them (search indexes included), with
    the rows above; the triggers of SQLite's search index see the rows in."""
    with database.transaction() as conn:
        RecordsProjection(tuple(SCHEMA)).create_tables(conn)
        for collection in SCHEMA:
            marks = ", ".join("?" * len(collection.fields))
            conn.executemany(
                f'INSERT INTO "{collection.table}" VALUES ({marks})', ROWS[collection.name]
            )


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    database = Database(DatabaseUrl.parse(database_url), pool_size=2)
    try:
        create_tables(database)
        yield database
    finally:
        database.close()


@pytest.fixture
def reader(database: Database) -> ItemReader:
    return ItemReader(database, SCHEMA)


def names(reader: ItemReader, filter: Any = None, **query: Any) -> list[str]:
    """Names of the authors a query returns, in the order it returns them."""
    parsed = ItemQuery(fields=("name",), filter=None if filter is None else parse_filter(filter))
    items = reader.list("authors", replace(parsed, **query))
    return [item["name"] for item in items]


def matching(reader: ItemReader, filter: Any, **options: Any) -> set[str]:
    return set(names(reader, filter, **options))


def names_with(reader: ItemReader, filter: Any = None, **options: Any) -> list[str]:
    """Like `names`, with the reader's options (`restrict_related`, ...) among `options`."""
    reader_options = {k: options.pop(k) for k in ("restrict", "restrict_related") if k in options}
    parsed = ItemQuery(fields=("name",), filter=None if filter is None else parse_filter(filter))
    items = reader.list("authors", replace(parsed, **options), **reader_options)
    return [item["name"] for item in items]


def matching_with(reader: ItemReader, filter: Any, **options: Any) -> set[str]:
    return set(names_with(reader, filter, **options))


def url(text: str) -> ItemQuery:
    pairs = [tuple(part.split("=", 1)) for part in text.split("&")]
    return parse_query([(k, v) for k, v in pairs])


# --- Operators by type ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ({"name": {"_eq": "Ada"}}, {"Ada"}),
        ({"name": "Ada"}, {"Ada"}),
        ({"name": {"_eq": "ada"}}, set()),
        ({"name": {"_neq": "Ada"}}, {"Bob", "Cy", "Dee", "Eve"}),
        ({"name": {"_in": ["Ada", "Cy", "Nobody"]}}, {"Ada", "Cy"}),
        ({"name": {"_in": "Ada,Cy"}}, {"Ada", "Cy"}),
        ({"name": {"_nin": ["Ada", "Cy"]}}, {"Bob", "Dee", "Eve"}),
        ({"bio": {"_contains": "lower"}}, {"Dee"}),
        ({"bio": {"_contains": "LOWER"}}, set()),
        ({"bio": {"_ncontains": "lower"}}, {"Ada", "Bob", "Eve"}),
        ({"bio": {"_icontains": "LOWER"}}, {"Dee"}),
        ({"bio": {"_nicontains": "upper"}}, {"Ada", "Bob", "Eve"}),
        ({"bio": {"_starts_with": "Counts"}}, {"Ada"}),
        ({"bio": {"_starts_with": "counts"}}, set()),
        ({"bio": {"_istarts_with": "counts"}}, {"Ada"}),
        ({"bio": {"_nstarts_with": "Counts"}}, {"Bob", "Dee", "Eve"}),
        ({"bio": {"_nistarts_with": "COUNTS"}}, {"Bob", "Dee", "Eve"}),
        ({"bio": {"_ends_with": "case"}}, {"Bob"}),
        ({"bio": {"_iends_with": "LOWER"}}, {"Dee"}),
        ({"bio": {"_nends_with": "case"}}, {"Ada", "Dee", "Eve"}),
        ({"bio": {"_niends_with": "CASE"}}, {"Ada", "Dee", "Eve"}),
        ({"bio": {"_empty": True}}, {"Cy", "Eve"}),
        ({"bio": {"_nempty": True}}, {"Ada", "Bob", "Dee"}),
        ({"bio": {"_null": True}}, {"Cy"}),
        ({"bio": {"_nnull": True}}, {"Ada", "Bob", "Dee", "Eve"}),
        ({"bio": {"_null": False}}, {"Ada", "Bob", "Dee", "Eve"}),
        ({"age": {"_eq": 36}}, {"Ada"}),
        ({"age": {"_eq": "36"}}, {"Ada"}),
        ({"age": {"_gt": 25}}, {"Ada", "Dee"}),
        ({"age": {"_gte": 25}}, {"Ada", "Bob", "Dee"}),
        ({"age": {"_lt": 25}}, {"Eve"}),
        ({"age": {"_lte": 25}}, {"Bob", "Eve"}),
        ({"age": {"_between": [25, 36]}}, {"Ada", "Bob"}),
        ({"age": {"_nbetween": "25,36"}}, {"Dee", "Eve"}),
        ({"age": {"_in": [0, 51]}}, {"Dee", "Eve"}),
        ({"age": {"_nin": [0, 51]}}, {"Ada", "Bob"}),
        ({"rating": {"_gt": 2.5}}, {"Ada", "Bob"}),
        ({"rating": {"_eq": 3}}, {"Bob"}),
        ({"active": {"_eq": True}}, {"Ada", "Dee"}),
        ({"active": {"_eq": "false"}}, {"Bob", "Eve"}),
        ({"active": {"_neq": True}}, {"Bob", "Eve"}),
        ({"joined": {"_gt": "2024-01-10T08:00:00Z"}}, {"Bob", "Eve"}),
        ({"joined": {"_gte": "2024-01-10T09:00:00+01:00"}}, {"Ada", "Bob", "Eve"}),
        ({"joined": {"_lt": "2024-01-01"}}, {"Dee"}),
        ({"joined": {"_between": ["2024-01-01", "2024-02-01"]}}, {"Ada", "Eve"}),
        ({"joined": {"_eq": "2024-01-10T08:00:00.000Z"}}, {"Ada"}),
        ({"settings": {"_nnull": True}}, {"Ada", "Dee"}),
        ({"id": {"_eq": BOB.upper()}}, {"Bob"}),
        ({"id": {"_in": [ADA, DEE]}}, {"Ada", "Dee"}),
        ({"password": {"_nnull": True}}, {"Ada"}),
        ({"token": {"_empty": True}}, {"Bob", "Cy", "Dee", "Eve"}),
    ],
)
def test_each_operator_returns_exactly_the_matching_items(
    reader: ItemReader, filter: dict[str, Any], expected: set[str]
) -> None:
    assert matching(reader, filter) == expected


def test_neq_and_nin_do_not_match_null_values(reader: ItemReader) -> None:
    assert "Cy" not in matching(reader, {"age": {"_neq": 36}})
    assert "Cy" not in matching(reader, {"age": {"_nin": [36]}})
    assert "Cy" not in matching(reader, {"bio": {"_ncontains": "x"}})


def test_eq_null_is_is_null_and_neq_null_is_is_not_null(reader: ItemReader) -> None:
    assert matching(reader, {"age": {"_eq": None}}) == {"Cy"}
    assert matching(reader, {"age": {"_neq": "null"}}) == {"Ada", "Bob", "Dee", "Eve"}


def test_like_wildcards_in_values_are_literal(reader: ItemReader) -> None:
    assert matching(reader, {"bio": {"_contains": "50%"}}) == {"Ada"}
    assert matching(reader, {"bio": {"_icontains": "50%"}}) == {"Ada"}
    assert matching(reader, {"bio": {"_contains": "e_c"}}) == {"Bob"}
    assert matching(reader, {"bio": {"_icontains": "s_%"}}) == set()
    assert matching(reader, {"bio": {"_starts_with": "%"}}) == set()
    assert matching(reader, {"bio": {"_contains": "*"}}) == set()


# --- Logic and relations ----------------------------------------------------------------


def test_several_keys_are_an_implicit_and(reader: ItemReader) -> None:
    assert matching(reader, {"active": {"_eq": True}, "age": {"_gt": 40}}) == {"Dee"}


def test_or_and_nested_logic(reader: ItemReader) -> None:
    filter = {"_or": [{"name": "Ada"}, {"_and": [{"age": {"_lt": 30}}, {"active": False}]}]}
    assert matching(reader, filter) == {"Ada", "Bob", "Eve"}


def test_logical_operators_under_a_field_apply_to_that_field(reader: ItemReader) -> None:
    assert matching(reader, {"age": {"_or": [{"_lt": 1}, {"_gt": 50}]}}) == {"Dee", "Eve"}


def test_empty_logical_groups_add_no_condition(reader: ItemReader) -> None:
    assert len(matching(reader, {"_or": []})) == 5
    assert len(matching(reader, {})) == 5


def test_many_to_one_paths_filter_on_the_related_item(reader: ItemReader) -> None:
    assert matching(reader, {"team": {"name": {"_eq": "Red"}}}) == {"Ada", "Dee"}
    assert matching(reader, {"mentor": {"mentor": {"name": "Ada"}}}) == {"Dee"}


def test_a_missing_related_item_counts_as_null_like_a_left_join(reader: ItemReader) -> None:
    # Cy has no team, Eve's team 9 does not exist, Blue has no city.
    assert matching(reader, {"team": {"city": {"_null": True}}}) == {"Bob", "Cy", "Eve"}
    assert matching(reader, {"team": {"city": {"_nnull": True}}}) == {"Ada", "Dee"}
    assert matching(reader, {"team": {"city": {"_neq": "Oslo"}}}) == set()


def test_to_many_conditions_default_to_some(reader: ItemReader) -> None:
    assert matching(reader, {"books": {"pages": {"_gt": 200}}}) == {"Ada"}
    assert matching(reader, {"books": {"_some": {"pages": {"_lt": 60}}}}) == {"Bob"}


def test_none_matches_items_without_such_related_items(reader: ItemReader) -> None:
    assert matching(reader, {"books": {"_none": {"pages": {"_gt": 200}}}}) == {
        "Bob",
        "Cy",
        "Dee",
        "Eve",
    }


def test_conditions_in_one_to_many_group_hold_on_the_same_related_item(
    reader: ItemReader,
) -> None:
    same_book = {"books": {"title": {"_eq": "Intro"}, "pages": {"_eq": 300}}}
    assert matching(reader, same_book) == set()
    any_books = {"_and": [{"books": {"title": "Intro"}}, {"books": {"pages": 300}}]}
    assert matching(reader, any_books) == {"Ada"}


def test_to_many_through_many_to_one(reader: ItemReader) -> None:
    teams_with_bob = {"team": {"members": {"name": {"_eq": "Bob"}}}}
    assert matching(reader, teams_with_bob) == {"Bob"}
    no_young_member = {"team": {"members": {"_none": {"age": {"_lt": 30}}}}}
    assert matching(reader, no_young_member) == {"Ada", "Cy", "Dee", "Eve"}


def test_reading_a_collection_filtered_on_its_many_to_one(reader: ItemReader) -> None:
    items = reader.list(
        "books", ItemQuery(fields=("title",), filter=parse_filter({"author": {"age": {"_gt": 30}}}))
    )
    assert [item["title"] for item in items] == ["Intro", "Advanced"]


# --- Search, sort, paging ---------------------------------------------------------------


def test_search_is_case_insensitive_over_string_and_text_fields(reader: ItemReader) -> None:
    assert matching(reader, None, search="upper") == {"Dee"}
    assert matching(reader, None, search="ADA") == {"Ada"}


def test_search_escapes_like_wildcards(reader: ItemReader) -> None:
    assert matching(reader, None, search="50%") == {"Ada"}
    assert matching(reader, None, search="_") == {"Bob"}


def test_search_matches_numbers_exactly_when_the_term_is_a_number(reader: ItemReader) -> None:
    assert matching(reader, None, search="36") == {"Ada"}
    assert matching(reader, None, search="2.25") == {"Dee"}


def test_search_matches_uuid_fields_when_the_term_is_a_uuid(reader: ItemReader) -> None:
    assert matching(reader, None, search=ADA) == {"Ada", "Bob", "Cy"}


def test_search_skips_concealed_fields(reader: ItemReader) -> None:
    assert matching(reader, None, search="tok") == set()


def test_default_sort_is_the_collections_sort_field(reader: ItemReader) -> None:
    assert names(reader) == ["Ada", "Bob", "Cy", "Dee", "Eve"]


def test_sort_descending_with_nulls_last(reader: ItemReader) -> None:
    assert names(reader, sort=(("age", True),)) == ["Dee", "Ada", "Bob", "Eve", "Cy"]
    assert names(reader, sort=(("age", False),)) == ["Cy", "Eve", "Bob", "Ada", "Dee"]


def test_sort_by_several_fields_and_by_a_related_field(reader: ItemReader) -> None:
    assert names(reader, sort=(("active", True), ("age", False))) == [
        "Ada",
        "Dee",
        "Eve",
        "Bob",
        "Cy",
    ]
    by_team = names(reader, sort=(("team.name", False), ("name", True)))
    assert by_team == ["Eve", "Cy", "Bob", "Dee", "Ada"]


def test_limit_offset_and_page(reader: ItemReader) -> None:
    assert names(reader, limit=2) == ["Ada", "Bob"]
    assert names(reader, limit=2, offset=3) == ["Dee", "Eve"]
    assert names(reader, limit=None, offset=4) == ["Eve"]
    query = url("fields=name&limit=2&page=2")
    assert [item["name"] for item in reader.list("authors", query)] == ["Cy", "Dee"]


def test_counts_for_meta(reader: ItemReader) -> None:
    restrict = parse_filter({"active": {"_nnull": True}})
    assert reader.count("authors") == 5
    assert reader.count("authors", restrict=restrict) == 4
    young = parse_filter({"age": {"_lt": 40}})
    assert reader.count("authors", filter=young, restrict=restrict) == 3
    assert reader.count("authors", filter=young, search="b", restrict=restrict) == 1


def test_restrict_and_keys_narrow_the_list(reader: ItemReader) -> None:
    restrict = parse_filter({"mentor": {"_eq": ADA}})
    items = reader.list("authors", ItemQuery(fields=("name",)), restrict=restrict)
    assert [item["name"] for item in items] == ["Bob", "Cy"]
    items = reader.list("authors", ItemQuery(fields=("name",)), restrict=restrict, keys=[BOB, DEE])
    assert [item["name"] for item in items] == ["Bob"]


def test_keys_of_the_wrong_type_match_nothing(reader: ItemReader) -> None:
    assert reader.list("teams", ItemQuery(), keys=["one", None]) == []
    assert reader.get("teams", "2") == {"id": 2, "name": "Blue", "city": None, "members": [BOB]}


def test_get_applies_the_restriction(reader: ItemReader) -> None:
    restrict = parse_filter({"active": True})
    assert reader.get("authors", BOB, ItemQuery(fields=("name",)), restrict=restrict) is None
    assert reader.get("authors", ADA, ItemQuery(fields=("name",)), restrict=restrict) == {
        "name": "Ada"
    }


def test_keys_where_a_field_holds_a_value(reader: ItemReader) -> None:
    assert reader.keys_where("authors", "mentor", ADA) == [BOB, CY]
    assert reader.keys_where("books", "author", "nobody") == []


def test_max_key_of_an_integer_keyed_collection(reader: ItemReader) -> None:
    assert reader.max_key("books") == 4
    assert reader.count("books", keys=[1, 4, 99]) == 2


def test_empty_in_list_of_a_permission_rule_matches_nothing(reader: ItemReader) -> None:
    items = reader.list("authors", ItemQuery(), restrict=parse_filter({"id": {"_in": []}}))
    assert items == []


# --- Fields -----------------------------------------------------------------------------


def test_star_reads_stored_fields_decoded_and_concealed_masked(reader: ItemReader) -> None:
    ada = reader.get("authors", ADA)
    assert ada == {
        "id": ADA,
        "name": "Ada",
        "bio": "Counts 50% of it",
        "age": 36,
        "rating": 4.5,
        "active": True,
        "joined": "2024-01-10T08:00:00.000Z",
        "settings": {"theme": "dark"},
        "team": 1,
        "mentor": None,
        "password": CONCEALED,
        "token": CONCEALED,
        "books": [1, 2],
    }
    bob = reader.get("authors", BOB, ItemQuery(fields=("active", "settings", "password", "token")))
    assert bob == {"active": False, "settings": None, "password": None, "token": None}


def test_many_to_one_fields_nest_the_related_item(reader: ItemReader) -> None:
    query = ItemQuery(fields=("name", "team.name", "mentor.*"), limit=None)
    items = {item["name"]: item for item in reader.list("authors", query)}
    assert items["Ada"]["team"] == {"name": "Red"}
    assert items["Ada"]["mentor"] is None
    assert items["Eve"]["team"] is None
    assert items["Bob"]["mentor"]["name"] == "Ada"
    assert items["Bob"]["mentor"]["password"] == CONCEALED


def test_alias_fields_read_related_items_or_their_keys(reader: ItemReader) -> None:
    query = ItemQuery(fields=("name", "books.title"), limit=None)
    items = {item["name"]: item for item in reader.list("authors", query)}
    assert items["Ada"]["books"] == [{"title": "Intro"}, {"title": "Advanced"}]
    assert items["Cy"]["books"] == []
    teams = reader.list("teams", ItemQuery(fields=("name", "members")))
    assert teams == [
        {"name": "Red", "members": [ADA, DEE]},
        {"name": "Blue", "members": [BOB]},
        {"name": "Green", "members": []},
    ]


def test_star_star_adds_one_level_of_relations(reader: ItemReader) -> None:
    (bob,) = reader.list(
        "authors", ItemQuery(fields=("*.*",), filter=parse_filter({"name": "Bob"}))
    )
    assert bob["team"] == {"id": 2, "name": "Blue", "city": None, "members": [BOB]}
    assert bob["mentor"]["name"] == "Ada"
    assert [book["title"] for book in bob["books"]] == ["Notes"]


def test_nested_fields_several_levels_deep(reader: ItemReader) -> None:
    query = ItemQuery(fields=("title", "author.team.members.name"), limit=None)
    books = {item["title"]: item for item in reader.list("books", query)}
    assert books["Notes"]["author"] == {"team": {"members": [{"name": "Bob"}]}}
    assert books["Orphan"]["author"] is None


def test_unknown_fields_are_forbidden(reader: ItemReader) -> None:
    with pytest.raises(FieldForbidden, match='field "nope" in collection "authors"'):
        reader.list("authors", ItemQuery(fields=("nope",)))
    with pytest.raises(FieldForbidden, match='field "nope" in collection "teams"'):
        reader.list("authors", ItemQuery(fields=("team.nope",)))
    with pytest.raises(FieldForbidden):
        reader.list("authors", ItemQuery(filter=parse_filter({"nope": 1})))


ALLOWED = {"authors": frozenset({"id", "name", "team"}), "teams": frozenset({"*"})}


def test_star_expands_to_allowed_fields_only(reader: ItemReader) -> None:
    items = reader.list("authors", ItemQuery(), keys=[DEE], allowed_fields=ALLOWED)
    assert items == [{"id": DEE, "name": "Dee", "team": 1}]
    (dee,) = reader.list("authors", ItemQuery(fields=("*.*",)), keys=[DEE], allowed_fields=ALLOWED)
    red = {"id": 1, "name": "Red", "city": "Oslo", "members": [ADA, DEE]}
    assert dee == {"id": DEE, "name": "Dee", "team": red}


def test_naming_a_forbidden_field_is_forbidden(reader: ItemReader) -> None:
    with pytest.raises(FieldForbidden, match='"age" in collection "authors"'):
        reader.list("authors", ItemQuery(fields=("age",)), allowed_fields=ALLOWED)
    with pytest.raises(FieldForbidden, match='"age"'):
        reader.list("authors", ItemQuery(filter=parse_filter({"age": 1})), allowed_fields=ALLOWED)
    with pytest.raises(FieldForbidden, match='"age"'):
        reader.list("authors", ItemQuery(sort=(("age", False),)), allowed_fields=ALLOWED)
    with pytest.raises(FieldForbidden, match='"books" in collection "authors"'):
        reader.list("authors", ItemQuery(fields=("books.title",)), allowed_fields=ALLOWED)


def test_search_only_looks_at_allowed_fields(reader: ItemReader) -> None:
    query = ItemQuery(fields=("name",), search="upper")
    assert reader.list("authors", query, allowed_fields=ALLOWED) == []
    assert reader.count("authors", search="upper", allowed_fields=ALLOWED) == 0


def test_a_restriction_may_use_fields_the_caller_cannot_read(reader: ItemReader) -> None:
    restrict = parse_filter({"age": {"_gt": 40}})
    items = reader.list("authors", ItemQuery(), restrict=restrict, allowed_fields=ALLOWED)
    assert items == [{"id": DEE, "name": "Dee", "team": 1}]


def test_a_many_to_one_field_reads_null_where_the_related_item_fails_its_rule(
    reader: ItemReader,
) -> None:
    rules = {"teams": parse_filter({"city": {"_nnull": True}})}
    query = ItemQuery(fields=("name", "team.name"), limit=None)
    teams = {i["name"]: i["team"] for i in reader.list("authors", query, restrict_related=rules)}
    # Blue has no city, so Bob's team is hidden; Cy has none and Eve's is gone.
    assert teams["Ada"] == teams["Dee"] == {"name": "Red"}
    assert teams["Bob"] is teams["Cy"] is teams["Eve"] is None


def test_invalid_values_are_query_errors_before_any_sql(reader: ItemReader) -> None:
    with pytest.raises(QueryError, match="not a valid number"):
        reader.list("authors", ItemQuery(filter=parse_filter({"age": {"_gt": "old"}})))
    with pytest.raises(QueryError, match="field type does not contain"):
        reader.count("authors", filter=parse_filter({"name": {"_gt": "a"}}))


# --- Item rules of related collections --------------------------------------------------

# Blue has no city, so it is hidden; Bob, Eve (and Cy, active NULL) are inactive.
CITY_TEAMS = {"teams": parse_filter({"city": {"_nnull": True}})}
ACTIVE_AUTHORS = {"authors": parse_filter({"active": {"_eq": True}})}


def listed(reader: ItemReader, collection: str, query: str, **options: Any) -> list[Any]:
    return reader.list(collection, url(query), **options)


def test_a_to_many_field_lists_only_related_items_that_pass_their_rule(
    reader: ItemReader,
) -> None:
    teams = listed(reader, "teams", "fields=name,members.name", restrict_related=ACTIVE_AUTHORS)
    assert teams == [
        {"name": "Red", "members": [{"name": "Ada"}, {"name": "Dee"}]},
        {"name": "Blue", "members": []},
        {"name": "Green", "members": []},
    ]


def test_a_bare_alias_field_lists_only_keys_of_items_that_pass_their_rule(
    reader: ItemReader,
) -> None:
    rules = {"authors": parse_filter({"name": {"_neq": "Dee"}})}
    teams = listed(reader, "teams", "fields=name,members", restrict_related=rules)
    assert [team["members"] for team in teams] == [[ADA], [BOB], []]


def test_nested_fields_apply_the_rule_of_each_collection_they_reach(reader: ItemReader) -> None:
    rules = {"authors": parse_filter({"name": {"_neq": "Dee"}}), **CITY_TEAMS}
    query = "fields=title,author.team.members.name&limit=-1"
    books = {
        b["title"]: b["author"] for b in listed(reader, "books", query, restrict_related=rules)
    }
    assert books["Intro"] == {"team": {"members": [{"name": "Ada"}]}}
    assert books["Notes"] == {"team": None}


def test_get_applies_the_rules_of_related_collections(reader: ItemReader) -> None:
    query = ItemQuery(fields=("title", "author.name"))
    book = reader.get("books", 3, query, restrict_related=ACTIVE_AUTHORS)
    assert book == {"title": "Notes", "author": None}


def test_a_many_to_one_filter_does_not_see_related_items_failing_their_rule(
    reader: ItemReader,
) -> None:
    blue = {"team": {"name": {"_eq": "Blue"}}}
    assert matching(reader, blue) == {"Bob"}
    assert matching_with(reader, blue, restrict_related=CITY_TEAMS) == set()


def test_a_to_many_filter_does_not_see_related_items_failing_their_rule(
    reader: ItemReader,
) -> None:
    query = ItemQuery(fields=("name",), filter=parse_filter({"members": {"name": {"_eq": "Bob"}}}))
    assert reader.list("teams", query) == [{"name": "Blue"}]
    assert reader.list("teams", query, restrict_related=ACTIVE_AUTHORS) == []


def test_none_holds_when_no_visible_related_item_matches(reader: ItemReader) -> None:
    young = parse_filter({"members": {"_none": {"age": {"_lt": 30}}}})
    query = ItemQuery(fields=("name",), filter=young)
    assert [t["name"] for t in reader.list("teams", query)] == ["Red", "Green"]
    hidden_young = reader.list("teams", query, restrict_related=ACTIVE_AUTHORS)
    assert [t["name"] for t in hidden_young] == ["Red", "Blue", "Green"]


def test_a_null_condition_holds_through_a_hidden_related_item_as_through_a_missing_one(
    reader: ItemReader,
) -> None:
    rules = {"teams": parse_filter({"name": {"_neq": "Red"}})}
    no_city = {"team": {"city": {"_null": True}}}
    assert matching_with(reader, no_city, restrict_related=rules) == {
        "Ada",
        "Bob",
        "Cy",
        "Dee",
        "Eve",
    }


def test_a_filter_through_several_relations_applies_each_collections_rule(
    reader: ItemReader,
) -> None:
    red = parse_filter({"author": {"team": {"name": "Red"}}})
    query = ItemQuery(fields=("title",), filter=red)
    assert [b["title"] for b in reader.list("books", query)] == ["Intro", "Advanced"]
    rules = {"authors": parse_filter({"name": {"_neq": "Ada"}})}
    assert reader.list("books", query, restrict_related=rules) == []


def test_sorting_by_a_related_field_treats_a_hidden_related_item_as_null(
    reader: ItemReader,
) -> None:
    sort = (("team.name", False), ("name", False))
    assert names_with(reader, sort=sort) == ["Cy", "Eve", "Bob", "Ada", "Dee"]
    assert names_with(reader, restrict_related=CITY_TEAMS, sort=sort) == [
        "Bob",
        "Cy",
        "Eve",
        "Ada",
        "Dee",
    ]


def test_filter_count_does_not_count_through_related_items_failing_their_rule(
    reader: ItemReader,
) -> None:
    blue = parse_filter({"team": {"name": {"_eq": "Blue"}}})
    assert reader.count("authors", filter=blue) == 1
    assert reader.count("authors", filter=blue, restrict_related=CITY_TEAMS) == 0
    bob = parse_filter({"members": {"name": {"_eq": "Bob"}}})
    assert reader.count("teams", filter=bob, restrict_related=ACTIVE_AUTHORS) == 0


def test_the_read_collections_restrict_applies_where_relations_lead_back_to_it(
    reader: ItemReader,
) -> None:
    active = ACTIVE_AUTHORS["authors"]
    authors = listed(reader, "authors", "fields=name,mentor.name", restrict=active)
    # Dee's mentor Bob is inactive, so hidden like any author failing the rule.
    assert authors == [{"name": "Ada", "mentor": None}, {"name": "Dee", "mentor": None}]


def test_restrict_related_holds_the_rule_for_related_items_of_the_read_collection(
    reader: ItemReader,
) -> None:
    active = ACTIVE_AUTHORS["authors"]
    not_ada = {"authors": parse_filter({"name": {"_neq": "Ada"}})}
    authors = listed(
        reader, "authors", "fields=name,mentor.name", restrict=active, restrict_related=not_ada
    )
    assert authors == [{"name": "Ada", "mentor": None}, {"name": "Dee", "mentor": {"name": "Bob"}}]


def test_a_rule_is_applied_as_written_without_the_rules_it_reaches(reader: ItemReader) -> None:
    rules = {
        "authors": parse_filter({"team": {"name": {"_eq": "Red"}}}),
        "teams": parse_filter({"name": {"_neq": "Red"}}),
    }
    book = reader.get("books", 1, ItemQuery(fields=("author.name",)), restrict_related=rules)
    assert book == {"author": {"name": "Ada"}}


def test_search_is_unaffected_by_related_rules(reader: ItemReader) -> None:
    assert matching_with(reader, None, search="ada", restrict_related=ACTIVE_AUTHORS) == {"Ada"}


# --- Unreadable collections -------------------------------------------------------------

NO_BOOKS = {"authors": frozenset({"*"}), "teams": frozenset({"*"})}


@pytest.mark.parametrize("fields", ["books.*", "books.title", "books", "name,*.*,books.*"])
def test_nested_fields_into_an_unreadable_collection_are_forbidden(
    reader: ItemReader, fields: str
) -> None:
    with pytest.raises(FieldForbidden, match='"books" in collection "authors"'):
        listed(reader, "authors", f"fields={fields}", allowed_fields=NO_BOOKS)


def test_star_star_leaves_out_aliases_into_unreadable_collections(reader: ItemReader) -> None:
    (ada,) = listed(reader, "authors", "fields=*.*", keys=[ADA], allowed_fields=NO_BOOKS)
    assert "books" not in ada
    assert ada["team"] == {"id": 1, "name": "Red", "city": "Oslo", "members": [ADA, DEE]}


def test_star_star_keeps_the_bare_key_of_a_many_to_one_into_an_unreadable_collection(
    reader: ItemReader,
) -> None:
    allowed = {"authors": frozenset({"*"})}
    (dee,) = listed(reader, "authors", "fields=*.*", keys=[DEE], allowed_fields=allowed)
    assert dee["team"] == 1
    assert dee["mentor"]["name"] == "Bob"


@pytest.mark.parametrize("quantifier", ["_some", "_none"])
def test_filters_cannot_test_for_items_of_an_unreadable_collection(
    reader: ItemReader, quantifier: str
) -> None:
    filter = parse_filter({"books": {quantifier: {}}})
    with pytest.raises(FieldForbidden, match='"books" in collection "authors"'):
        reader.count("authors", filter=filter, allowed_fields=NO_BOOKS)


# --- Integers beyond 64 bits ------------------------------------------------------------


@pytest.mark.parametrize(
    "key", [2**63, -(2**63) - 1, 10**23, "99999999999999999999999", "-9223372036854775809"]
)
def test_integer_keys_beyond_64_bits_match_nothing(reader: ItemReader, key: Any) -> None:
    assert reader.list("teams", ItemQuery(), keys=[key]) == []
    assert reader.count("teams", keys=[key]) == 0
    assert reader.get("teams", key) is None


def test_a_key_beyond_64_bits_does_not_hide_the_other_keys(reader: ItemReader) -> None:
    assert reader.count("teams", keys=[2**64, 1, "3"]) == 2


def test_integer_key_text_beyond_the_safe_integers_is_read_exactly(
    database: Database, reader: ItemReader
) -> None:
    big = 2**62 + 1
    with database.transaction() as conn:
        conn.execute('INSERT INTO "teams" VALUES (?, ?, ?)', [big, "Big", None])
    assert reader.get("teams", str(big)) == {"id": big, "name": "Big", "city": None, "members": []}
    assert reader.get("teams", big - 1) is None


@pytest.mark.parametrize(
    "filter",
    [
        {"id": {"_eq": 2**63}},
        {"id": {"_in": [1, 2**64]}},
        {"id": {"_between": [0, 10**23]}},
        {"id": {"_lt": "-99999999999999999999999"}},
        {"name": {"_eq": 2**63}},
    ],
)
def test_filter_values_beyond_the_safe_integers_are_query_errors(
    reader: ItemReader, filter: dict[str, Any]
) -> None:
    with pytest.raises(QueryError, match="not a valid number"):
        reader.list("teams", ItemQuery(filter=parse_filter(filter)))
    with pytest.raises(QueryError, match="not a valid number"):
        reader.count("teams", filter=parse_filter(filter))


def test_rule_values_beyond_the_safe_integers_are_query_errors(reader: ItemReader) -> None:
    rule = parse_filter({"id": {"_gt": 2**63}})
    with pytest.raises(QueryError, match="not a valid number"):
        reader.count("teams", restrict=rule)
    with pytest.raises(QueryError, match="not a valid number"):
        listed(reader, "authors", "fields=team.name", restrict_related={"teams": rule})


# --- Aggregates and groups --------------------------------------------------------------


def aggregated(reader: ItemReader, collection: str, query: str, **options: Any) -> list[Any]:
    return reader.aggregate(collection, url(query), **options)


def test_count_of_the_items_and_of_a_fields_values(reader: ItemReader) -> None:
    assert aggregated(reader, "authors", "aggregate[count]=*") == [{"count": 5}]
    assert aggregated(reader, "authors", "aggregate[countAll]=*") == [{"countAll": 5}]
    assert aggregated(reader, "authors", "aggregate[count]=age,bio") == [
        {"count": {"age": 4, "bio": 4}}
    ]
    assert aggregated(reader, "authors", "aggregate[countDistinct]=active,team") == [
        {"countDistinct": {"active": 2, "team": 3}}
    ]


def test_sums_averages_minima_and_maxima(reader: ItemReader) -> None:
    (row,) = aggregated(
        reader,
        "authors",
        "aggregate[sum]=age,rating&aggregate[avg]=age&aggregate[sumDistinct]=team"
        "&aggregate[avgDistinct]=team&aggregate[min]=age,name,active&aggregate[max]=joined",
    )
    assert row == {
        "sum": {"age": 112, "rating": 9.75},
        "avg": {"age": 28.0},
        "sumDistinct": {"team": 12},
        "avgDistinct": {"team": 4.0},
        "min": {"age": 0, "name": "Ada", "active": False},
        "max": {"joined": "2024-03-01T12:00:00.000Z"},
    }
    assert type(row["sum"]["age"]) is int
    assert type(row["sum"]["rating"]) is float
    assert type(row["avg"]["age"]) is float


def test_aggregates_of_no_items(reader: ItemReader) -> None:
    query = "aggregate[count]=*&aggregate[sum]=age&aggregate[max]=name&filter[name][_eq]=Nobody"
    assert aggregated(reader, "authors", query) == [
        {"count": 0, "sum": {"age": None}, "max": {"name": None}}
    ]


def test_group_by_puts_the_group_fields_first_sorted_by_them(reader: ItemReader) -> None:
    assert aggregated(reader, "authors", "aggregate[count]=*&groupBy=active") == [
        {"active": None, "count": 1},
        {"active": False, "count": 2},
        {"active": True, "count": 2},
    ]
    assert aggregated(reader, "authors", "groupBy=active,team&aggregate[max]=age") == [
        {"active": None, "team": None, "max": {"age": None}},
        {"active": False, "team": 2, "max": {"age": 25}},
        {"active": False, "team": 9, "max": {"age": 0}},
        {"active": True, "team": 1, "max": {"age": 51}},
    ]


def test_group_by_alone_lists_the_distinct_groups(reader: ItemReader) -> None:
    assert aggregated(reader, "books", "groupBy=author") == [
        {"author": None},
        {"author": ADA},
        {"author": BOB},
    ]


def test_groups_sort_by_aggregates_and_page(reader: ItemReader) -> None:
    by_count = aggregated(reader, "authors", "aggregate[count]=*&groupBy=team&sort=-count")
    assert [row["team"] for row in by_count] == [1, None, 2, 9]
    pages = "aggregate[sum]=pages&groupBy=author&sort=-sum.pages"
    assert aggregated(reader, "books", pages) == [
        {"author": ADA, "sum": {"pages": 400}},
        {"author": BOB, "sum": {"pages": 50}},
        {"author": None, "sum": {"pages": 10}},
    ]
    assert aggregated(reader, "books", pages + "&limit=1&page=2") == [
        {"author": BOB, "sum": {"pages": 50}}
    ]
    assert aggregated(reader, "authors", "groupBy=team&sort=-team&limit=2") == [
        {"team": 9},
        {"team": 2},
    ]


def test_filter_search_restrict_and_keys_choose_what_is_aggregated(reader: ItemReader) -> None:
    query = "aggregate[count]=*&groupBy=active&filter[age][_gte]=25"
    assert aggregated(reader, "authors", query) == [
        {"active": False, "count": 1},
        {"active": True, "count": 2},
    ]
    assert aggregated(reader, "authors", "aggregate[count]=*&search=lower") == [{"count": 1}]
    assert aggregated(reader, "authors", "aggregate[count]=*&filter[team][name][_eq]=Red") == [
        {"count": 2}
    ]
    restrict = parse_filter({"mentor": {"_eq": ADA}})
    assert aggregated(reader, "authors", "aggregate[count]=*", restrict=restrict) == [{"count": 2}]
    assert aggregated(reader, "authors", "aggregate[count]=*", keys=[ADA, BOB, "x"]) == [
        {"count": 2}
    ]


def test_only_readable_fields_are_aggregated_or_grouped(reader: ItemReader) -> None:
    by_team = aggregated(
        reader, "authors", "aggregate[count]=*&groupBy=team", allowed_fields=ALLOWED
    )
    assert by_team == [
        {"team": None, "count": 1},
        {"team": 1, "count": 2},
        {"team": 2, "count": 1},
        {"team": 9, "count": 1},
    ]
    with pytest.raises(FieldForbidden, match='"age"'):
        aggregated(reader, "authors", "aggregate[sum]=age", allowed_fields=ALLOWED)
    with pytest.raises(FieldForbidden, match='"active"'):
        aggregated(reader, "authors", "aggregate[count]=*&groupBy=active", allowed_fields=ALLOWED)
    with pytest.raises(QueryError, match="number fields only"):
        aggregated(reader, "authors", "aggregate[avg]=name")
