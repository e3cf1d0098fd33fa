"""The Directus query language: parsing, validation, dynamic variables, evaluation in Python."""

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from domain.collections.evaluation import matches
from domain.collections.filters import And, Condition, Filter, Or, Related, parse_filter
from domain.collections.item_query import Aggregate, ItemQuery, parse_query, query_from_object
from domain.collections.paths import MAX_RELATIONAL_DEPTH
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.schema import Alias, Collection, Field, FieldType, Schema
from domain.collections.selection import Selection, select
from domain.collections.validation import validate
from domain.collections.variables import VariableContext, resolve_variables

T = FieldType
ROLES = Collection(
    "roles",
    "id",
    (Field("id", T.UUID), Field("name", T.STRING), Field("parent", T.UUID, relation="roles")),
    aliases=(Alias("users", "users", "role"), Alias("children", "roles", "parent")),
)
USERS = Collection(
    "users",
    "id",
    (
        Field("id", T.UUID),
        Field("email", T.STRING),
        Field("bio", T.TEXT),
        Field("age", T.INTEGER),
        Field("score", T.FLOAT),
        Field("active", T.BOOLEAN),
        Field("created", T.DATETIME),
        Field("prefs", T.JSON),
        Field("role", T.UUID, relation="roles"),
        Field("password", T.HASH, concealed=True),
        Field("token", T.STRING, concealed=True),
    ),
)
SCHEMA = Schema((ROLES, USERS))
USER = "8c5b4a3e-1f2d-4e6a-9b7c-0d1e2f3a4b5c"


def q(text: str) -> ItemQuery:
    """An item query from a query string (values not URL-encoded)."""
    pairs = [part.split("=", 1) for part in text.split("&")]
    return parse_query([(key, value) for key, value in pairs])


def checked(raw: Any, collection: Collection = USERS, **options: Any) -> Filter:
    return validate(parse_filter(raw), collection, SCHEMA, **options)


def condition(raw: Any) -> Condition:
    result = checked(raw)
    assert isinstance(result, Condition)
    return result


def error(raw: Any, **options: Any) -> str:
    with pytest.raises(QueryError) as caught:
        checked(raw, **options)
    return str(caught.value)


# --- Parsing filters --------------------------------------------------------------------


def test_a_bare_value_means_eq() -> None:
    assert parse_filter({"email": "a@x"}) == Condition(("email",), "_eq", "a@x")


def test_several_keys_are_an_implicit_and() -> None:
    assert parse_filter({"age": {"_gt": 1}, "email": {"_null": True}}) == And(
        (Condition(("age",), "_gt", 1), Condition(("email",), "_null", True))
    )


def test_and_and_or_nest() -> None:
    raw = {"_or": [{"age": 1}, {"_and": [{"age": 2}, {"email": "e"}]}]}
    assert parse_filter(raw) == Or(
        (
            Condition(("age",), "_eq", 1),
            And((Condition(("age",), "_eq", 2), Condition(("email",), "_eq", "e"))),
        )
    )


def test_empty_groups_add_no_condition_and_single_item_groups_are_their_item() -> None:
    assert parse_filter({"_or": []}) == And(())
    assert parse_filter({}) == And(())
    assert parse_filter({"_and": [{"age": 1}]}) == Condition(("age",), "_eq", 1)


def test_logical_operators_under_a_field_are_lifted_over_it() -> None:
    assert parse_filter({"age": {"_or": [{"_lt": 1}, {"_gt": 9}]}}) == Or(
        (Condition(("age",), "_lt", 1), Condition(("age",), "_gt", 9))
    )


def test_a_relation_object_groups_its_conditions() -> None:
    assert parse_filter({"role": {"name": "a", "parent": {"_null": True}}}) == Related(
        ("role",), And((Condition(("name",), "_eq", "a"), Condition(("parent",), "_null", True)))
    )


def test_some_and_none_name_the_quantifier() -> None:
    assert parse_filter({"users": {"_none": {"age": 1}}}) == Related(
        ("users",), Condition(("age",), "_eq", 1), "_none"
    )


def test_an_unknown_operator_is_a_query_error() -> None:
    with pytest.raises(QueryError, match=re.escape('Unknown filter operator "_foo".')):
        parse_filter({"age": {"_foo": 1}})
    with pytest.raises(QueryError, match=re.escape('Unknown filter operator "_xor".')):
        parse_filter({"_xor": []})


def test_an_operator_needs_a_field() -> None:
    with pytest.raises(QueryError, match=re.escape('The filter operator "_eq" needs a field.')):
        parse_filter({"_eq": 1})


@pytest.mark.parametrize("raw", [[{"age": 1}], "age", 5, None, {"_and": [5]}])
def test_a_filter_must_be_an_object(raw: Any) -> None:
    with pytest.raises(QueryError, match=re.escape("A filter must be an object.")):
        parse_filter(raw)


def test_logical_operators_take_arrays() -> None:
    with pytest.raises(QueryError, match=re.escape('"_and" has to be an array of filters.')):
        parse_filter({"_and": {"age": 1}})


def test_keys_must_be_non_empty_strings() -> None:
    with pytest.raises(QueryError, match="Filter keys"):
        parse_filter({1: 2})
    with pytest.raises(QueryError, match="Filter keys"):
        parse_filter({"": 2})


def test_deeply_nested_filters_are_refused() -> None:
    raw: dict[str, Any] = {"age": 1}
    for _ in range(100_000):
        raw = {"_and": [raw]}
    with pytest.raises(QueryError, match="nested too deeply"):
        parse_filter(raw)


# --- Parsing query parameters -----------------------------------------------------------


def test_defaults_of_a_query() -> None:
    assert parse_query([]) == ItemQuery(limit=100)
    assert parse_query([], default_limit=None).limit is None


def test_fields_come_as_csv_or_arrays_and_are_trimmed() -> None:
    assert q("fields=id, email&fields[]=role.name,bio&fields[3]=age").fields == (
        "id",
        "email",
        "role.name",
        "bio",
        "age",
    )


def test_filter_as_json() -> None:
    assert q('filter={"age":{"_gt":3}}').filter == Condition(("age",), "_gt", 3)


def test_filter_with_invalid_json_is_a_query_error() -> None:
    with pytest.raises(QueryError, match="Invalid JSON for filter object"):
        q("filter={age")


def test_filter_json_that_is_too_deep_is_invalid_json() -> None:
    with pytest.raises(QueryError, match="Invalid JSON"):
        q("filter=" + "[" * 100_000)


def test_filter_in_bracket_form() -> None:
    assert q("filter[email][_eq]=a@x").filter == Condition(("email",), "_eq", "a@x")
    assert q("filter[age]=3").filter == Condition(("age",), "_eq", "3")


def test_bracket_form_indices_make_arrays() -> None:
    query = q("filter[_or][1][age][_eq]=2&filter[_or][0][age][_eq]=1")
    assert query.filter == Or((Condition(("age",), "_eq", "1"), Condition(("age",), "_eq", "2")))


def test_bracket_form_lists_by_csv_repetition_appending_or_high_indices() -> None:
    assert q("filter[id][_in]=1,2").filter == Condition(("id",), "_in", "1,2")
    assert q("filter[id][_in]=1&filter[id][_in]=2").filter == Condition(("id",), "_in", ["1", "2"])
    assert q("filter[id][_in][]=1&filter[id][_in][]=2").filter == Condition(
        ("id",), "_in", ["1", "2"]
    )
    high = "&".join(f"filter[age][_in][{i}]={i}" for i in range(30))
    assert q(high).filter == Condition(("age",), "_in", [str(i) for i in range(30)])


def test_conflicting_bracket_parameters_are_a_query_error() -> None:
    with pytest.raises(QueryError, match="Conflicting"):
        q("filter[age]=1&filter[age][_eq]=2")


def test_the_filter_is_given_once() -> None:
    with pytest.raises(QueryError, match="Give the filter once"):
        q('filter={"age":1}&filter[age]=2')
    with pytest.raises(QueryError, match="Give the filter once"):
        q('filter={"age":1}&filter={"age":2}')


def test_an_empty_or_null_filter_is_no_filter() -> None:
    assert q("filter=").filter is None
    assert q("filter=null").filter is None


def test_sort_takes_csv_or_arrays_with_minus_for_descending() -> None:
    assert q("sort=-age,email&sort[]=role.name").sort == (
        ("age", True),
        ("email", False),
        ("role.name", False),
    )


def test_a_sort_term_needs_a_field() -> None:
    with pytest.raises(QueryError, match=re.escape('Invalid sort field "-".')):
        q("sort=-")


def test_limit_minus_one_reads_everything() -> None:
    assert q("limit=-1").limit is None
    assert q("limit=0").limit == 0


@pytest.mark.parametrize("value", ["abc", "1.5", "-2", "", "9007199254740992", "1e3"])
def test_limit_must_be_an_integer_from_minus_one(value: str) -> None:
    with pytest.raises(QueryError, match='"limit" must be an integer from -1'):
        q(f"limit={value}")


def test_scalar_parameters_are_given_once() -> None:
    with pytest.raises(QueryError, match='"limit" must be given once'):
        q("limit=1&limit=2")
    with pytest.raises(QueryError, match='"search" must be given once'):
        q("search[]=x")


def test_offset_must_not_be_negative() -> None:
    assert q("offset=5").offset == 5
    with pytest.raises(QueryError, match='"offset" must be an integer from 0'):
        q("offset=-1")


def test_page_sets_the_offset_from_the_limit() -> None:
    assert q("page=3").offset == 200
    assert q("limit=10&page=2&offset=99").offset == 10
    assert q("limit=10&page=0&offset=7").offset == 7


def test_page_is_ignored_when_reading_everything() -> None:
    assert q("limit=-1&page=3").offset == 0


def test_a_page_beyond_the_safe_integers_is_refused() -> None:
    with pytest.raises(QueryError, match=re.escape('"page" is too large.')):
        q("limit=9007199254740991&page=3")


def test_meta_takes_counts_or_star() -> None:
    assert q("meta=total_count").meta == {"total_count"}
    assert q("meta=*").meta == {"total_count", "filter_count"}
    assert q("meta[]=filter_count&meta[]=total_count").meta == {"total_count", "filter_count"}
    with pytest.raises(QueryError, match='"meta" must be total_count, filter_count or \\*'):
        q("meta=count")


def test_an_empty_search_is_no_search() -> None:
    assert q("search=").search is None
    assert q("search=ada").search == "ada"


def test_other_parameters_are_ignored() -> None:
    assert q("access_token=abc&x[y]=1&weird[=2") == ItemQuery(limit=100)


def test_aggregate_in_bracket_form_takes_csv_and_arrays() -> None:
    query = q(
        "aggregate[count]=*&aggregate[sum]=age, score&aggregate[max][]=age&aggregate[min][0]=age"
    )
    assert query.aggregate == (
        Aggregate("count", "*"),
        Aggregate("sum", "age"),
        Aggregate("sum", "score"),
        Aggregate("max", "age"),
        Aggregate("min", "age"),
    )
    assert query.aggregating
    assert not q("fields=id").aggregating


def test_aggregate_as_json_and_count_all() -> None:
    query = q('aggregate={"countDistinct": "role", "avg": ["age"], "countAll": []}')
    assert query.aggregate == (
        Aggregate("countDistinct", "role"),
        Aggregate("avg", "age"),
        Aggregate("countAll", "*"),
    )
    assert q("aggregate[countAll]=*").aggregate == (Aggregate("countAll", "*"),)


def test_aggregate_names_for_sorting() -> None:
    assert Aggregate("count", "*").name == "count"
    assert Aggregate("sum", "age").name == "sum.age"


def test_group_by_takes_csv_and_arrays_without_repeats() -> None:
    assert q("groupBy=role, active&groupBy[]=role").group_by == ("role", "active")
    assert q("groupBy[]=role&groupBy[]=active").group_by == ("role", "active")
    assert q("groupBy=role").aggregating


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("aggregate[median]=age", 'Unknown aggregate function "median".'),
        ("aggregate[count]=", '"aggregate[count]" needs a field.'),
        ("aggregate[count][a]=id", 'Malformed query parameter "aggregate[count][a]".'),
        ("aggregate[count][][]=id", "Malformed query parameter"),
        ("aggregate[]=id", "Malformed query parameter"),
        ("aggregate={bad", "Invalid JSON for aggregate object."),
        ('aggregate=["count"]', '"aggregate" must be an object'),
        ('aggregate={"count": 1}', '"aggregate.count" must be a string or an array of strings.'),
        ('aggregate={"count": "*"}&aggregate[sum]=age', "Give the aggregate once"),
        ("groupBy[x]=role", "Malformed query parameter"),
    ],
)
def test_malformed_aggregates_are_query_errors(text: str, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        q(text)
    assert message in str(caught.value)


def test_malformed_known_parameters_are_refused() -> None:
    with pytest.raises(QueryError, match="Malformed"):
        q("fields[a]=id")
    with pytest.raises(QueryError, match="Malformed"):
        q("filter[age=1")


def test_parameters_must_be_text() -> None:
    five: Any = 5
    with pytest.raises(QueryError, match="must be text"):
        parse_query([("limit", five)])


def test_a_search_body_query_holds_real_json() -> None:
    query = query_from_object(
        {
            "fields": ["id", "role.name"],
            "filter": {"age": {"_gte": 18}},
            "sort": "-age",
            "limit": 5,
            "page": 2,
            "meta": ["total_count"],
            "search": "ada",
        }
    )
    assert query == ItemQuery(
        fields=("id", "role.name"),
        filter=Condition(("age",), "_gte", 18),
        search="ada",
        sort=(("age", True),),
        limit=5,
        offset=5,
        meta=frozenset({"total_count"}),
    )


def test_a_search_body_query_takes_aggregate_and_group_by() -> None:
    query = query_from_object(
        {"aggregate": {"count": ["*"], "sum": "age,score"}, "groupBy": ["role"], "sort": "-count"}
    )
    assert query.aggregate == (
        Aggregate("count", "*"),
        Aggregate("sum", "age"),
        Aggregate("sum", "score"),
    )
    assert query.group_by == ("role",)
    assert query.sort == (("count", True),)
    assert query_from_object({"aggregate": '{"max": ["age"]}', "groupBy": "role,active"}) == (
        ItemQuery(limit=100, aggregate=(Aggregate("max", "age"),), group_by=("role", "active"))
    )
    with pytest.raises(QueryError, match='"groupBy" must be a string or an array'):
        query_from_object({"groupBy": {"a": 1}})


def test_a_search_body_query_accepts_csv_and_a_json_filter_string() -> None:
    query = query_from_object({"fields": "id,email", "filter": '{"age": 1}', "limit": "-1"})
    assert query.fields == ("id", "email")
    assert query.filter == Condition(("age",), "_eq", 1)
    assert query.limit is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "The query must be an object."),
        ({"limit": True}, '"limit" must be an integer'),
        ({"limit": 2.5}, '"limit" must be an integer'),
        ({"fields": [1]}, '"fields" must be a string or an array of strings.'),
        ({"filter": [1]}, "A filter must be an object."),
        ({"search": 5}, '"search" must be a string.'),
        ({"deep": []}, '"deep" must be an object of relations.'),
        ({"alias": {"a": 1}}, '"alias" keys and values must be strings without ".".'),
        ({"export": "pdf"}, '"export" must be one of csv, csv_utf8, json, xml, yaml.'),
        ({1: 2}, "Query keys must be strings."),
    ],
)
def test_a_search_body_query_with_wrong_types_is_a_query_error(body: Any, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        query_from_object(body)
    assert message in str(caught.value)


# --- Validation: paths ------------------------------------------------------------------


def test_an_unknown_field_is_forbidden_with_the_directus_message() -> None:
    with pytest.raises(FieldForbidden) as caught:
        checked({"nope": 1})
    assert str(caught.value) == (
        'You don\'t have permission to access field "nope" in collection "users"'
        " or it does not exist."
    )
    assert (caught.value.field, caught.value.collection) == ("nope", "users")


def test_many_to_one_paths_are_folded_into_the_condition() -> None:
    assert checked({"role": {"parent": {"name": "x"}}}) == Condition(
        ("role", "parent", "name"), "_eq", "x"
    )


def test_an_unknown_field_behind_a_relation_is_forbidden_in_the_related_collection() -> None:
    with pytest.raises(FieldForbidden, match='"nope" in collection "roles"'):
        checked({"role": {"nope": 1}})


def test_to_many_relations_default_to_some() -> None:
    assert checked({"users": {"age": 1}}, ROLES) == Related(
        ("users",), Condition(("age",), "_eq", 1), "_some"
    )


def test_to_many_after_many_to_one_keeps_the_whole_path() -> None:
    assert checked({"role": {"users": {"_none": {"age": 1}}}}) == Related(
        ("role", "users"), Condition(("age",), "_eq", 1), "_none"
    )


def test_a_condition_path_through_an_alias_becomes_a_some() -> None:
    result = validate(Condition(("users", "age"), "_eq", 1), ROLES, SCHEMA)
    assert result == Related(("users",), Condition(("age",), "_eq", 1), "_some")


def test_quantifiers_apply_to_to_many_relations_only() -> None:
    assert "applies to to-many relations only" in error({"role": {"_some": {"name": "x"}}})


def test_a_to_many_relation_is_not_compared_itself() -> None:
    assert "is a to-many relation" in error({"users": {"_null": True}}, collection=ROLES)


def test_a_plain_field_has_no_fields() -> None:
    assert '"age" in collection "users" is not a relation.' in error({"age": {"x": 1}})


def test_paths_deeper_than_the_maximum_are_refused() -> None:
    raw: Any = {"_null": True}
    for _ in range(MAX_RELATIONAL_DEPTH):
        raw = {"parent": raw}
    assert checked(raw, ROLES) == Condition(("parent",) * MAX_RELATIONAL_DEPTH, "_null", True)
    assert error({"parent": raw}, collection=ROLES) == "Max relational depth exceeded."


def test_depth_counts_across_to_many_relations() -> None:
    raw: Any = {"name": "x"}
    for _ in range(MAX_RELATIONAL_DEPTH - 1):
        raw = {"children": raw}
    checked(raw, ROLES)
    assert error({"children": raw}, collection=ROLES) == "Max relational depth exceeded."


# --- Validation: operators and values ---------------------------------------------------


@pytest.mark.parametrize(
    ("field", "operator"),
    [
        ("email", "_gt"),
        ("email", "_between"),
        ("id", "_contains"),
        ("active", "_in"),
        ("prefs", "_eq"),
        ("age", "_contains"),
        ("created", "_starts_with"),
        ("password", "_eq"),
    ],
)
def test_each_type_takes_its_operators_only(field: str, operator: str) -> None:
    spec = USERS.field(field)
    assert spec is not None
    field_type = spec.type
    message = f'"{field_type}" field type does not contain the "{operator}" filter operator.'
    assert error({field: {operator: "1"}}) == message


def test_concealed_fields_take_null_and_empty_checks_only() -> None:
    assert error({"token": {"_eq": "x"}}) == (
        'Field with "conceal" special does not allow the "_eq" filter operator.'
    )
    assert condition({"token": {"_empty": True}}) == Condition(("token",), "_empty", True)
    assert condition({"password": {"_nnull": True}}) == Condition(("password",), "_nnull", True)


def test_list_operators_need_non_empty_arrays() -> None:
    assert error({"age": {"_in": 5}}) == '"_in" has to be an array of values.'
    assert error({"age": {"_nin": []}}) == '"_nin" has to be an array of values.'
    assert error({"age": {"_between": [1]}}) == '"_between" has to be an array of two values.'


def test_a_csv_string_is_split_for_list_operators() -> None:
    assert condition({"age": {"_in": "1,2"}}) == Condition(("age",), "_in", (1, 2))


def test_null_and_empty_checks_need_booleans() -> None:
    assert error({"age": {"_null": 1}}) == '"_null" has to be a boolean.'
    assert condition({"age": {"_null": None}}) == Condition(("age",), "_null", True)
    assert condition({"bio": {"_empty": ""}}) == Condition(("bio",), "_empty", True)


def test_false_checks_become_their_opposites() -> None:
    assert condition({"age": {"_null": False}}) == Condition(("age",), "_nnull", True)
    assert condition({"bio": {"_nempty": "false"}}) == Condition(("bio",), "_empty", True)


def test_an_empty_string_is_refused_with_the_directus_message() -> None:
    assert error({"email": {"_eq": ""}}) == (
        'You can\'t filter for an empty string in "_eq". Use "_empty" or "_nempty" instead.'
    )
    assert "empty string" in error({"email": {"_contains": ""}})


def test_values_must_be_strings_numbers_or_booleans() -> None:
    assert error({"email": {"_eq": {"a": 1}}}) == (
        'The filter value for "_eq" has to be a string, number, or boolean.'
    )
    assert "has to be a string" in error({"email": {"_eq": [1]}})
    assert "has to be a string" in error({"age": {"_gt": None}})
    assert "has to be a string" in error({"age": {"_in": [1, None]}})


@pytest.mark.parametrize("value", [2**53, -(2**53), float("inf"), float("nan"), "9007199254740993"])
def test_numbers_beyond_the_safe_integers_are_refused(value: Any) -> None:
    assert error({"age": {"_eq": value}}) == 'The filter value for "_eq" is not a valid number.'


@pytest.mark.parametrize("text", ["a\x00b", "\ud800"])
def test_text_no_database_can_store_is_refused(text: str) -> None:
    assert "cannot be stored" in error({"email": text})
    with pytest.raises(QueryError, match="cannot be stored"):
        query_from_object({"search": text})


def test_eq_null_is_null_and_neq_null_is_not_null() -> None:
    assert condition({"age": {"_eq": None}}) == Condition(("age",), "_null", True)
    assert condition({"age": {"_neq": "null"}}) == Condition(("age",), "_nnull", True)
    assert condition({"age": "NULL"}) == Condition(("age",), "_null", True)


def test_true_and_false_strings_are_booleans() -> None:
    assert condition({"active": "true"}) == Condition(("active",), "_eq", True)
    assert condition({"active": {"_neq": "false"}}) == Condition(("active",), "_neq", False)
    assert condition({"active": "1"}) == Condition(("active",), "_eq", True)
    assert "has to be a boolean" in error({"active": "yes"})


def test_numbers_are_cast_from_text() -> None:
    assert condition({"age": "42"}) == Condition(("age",), "_eq", 42)
    assert condition({"score": {"_lt": " 2.5 "}}) == Condition(("score",), "_lt", 2.5)
    assert error({"age": "forty"}) == 'The filter value for "_eq" is not a valid number.'


def test_text_fields_compare_as_text() -> None:
    assert condition({"email": 5}) == Condition(("email",), "_eq", "5")
    assert condition({"email": "true"}) == Condition(("email",), "_eq", "true")


def test_date_times_are_normalised_to_the_stored_utc_text() -> None:
    assert condition({"created": {"_gt": "2024-03-01T10:00:00+02:00"}}) == Condition(
        ("created",), "_gt", "2024-03-01T08:00:00.000Z"
    )
    assert condition({"created": "2024-03-01"}).value == "2024-03-01T00:00:00.000Z"
    # An unencoded "+" of a query string arrives as a space.
    assert condition({"created": "2024-03-01T10:00:00 02:00"}).value == "2024-03-01T08:00:00.000Z"
    assert error({"created": "soon"}) == 'The filter value for "_eq" is not a valid date-time.'


def test_uuids_are_compared_in_canonical_form() -> None:
    assert condition({"id": USER.upper()}).value == USER
    assert condition({"id": "not-a-uuid"}).value == "not-a-uuid"


def test_permission_rules_may_hold_empty_lists_and_strings() -> None:
    rule = checked({"id": {"_in": []}, "email": ""}, purpose="permission")
    assert rule == And((Condition(("id",), "_in", ()), Condition(("email",), "_eq", "")))


def test_regex_and_submitted_are_for_validation_rules_only() -> None:
    assert error({"email": {"_regex": "x"}}) == (
        'The "_regex" filter operator is for validation rules only.'
    )
    rule = checked({"email": {"_regex": "^a"}, "age": {"_submitted": True}}, purpose="validation")
    assert rule == And(
        (Condition(("email",), "_regex", "^a"), Condition(("age",), "_submitted", True))
    )


def test_an_invalid_regular_expression_is_a_query_error() -> None:
    assert "not a valid regular expression" in error(
        {"email": {"_regex": "("}}, purpose="validation"
    )


def test_validating_twice_changes_nothing() -> None:
    once = checked(
        {
            "role": {"parent": {"name": "x"}},
            "created": {"_between": ["2024-01-01", "2024-02-01"]},
            "active": "true",
            "age": {"_null": False},
            "id": {"_in": f"{USER.upper()},x"},
        }
    )
    assert validate(once, USERS, SCHEMA) == once


def test_validation_leaves_dynamic_variables_for_later() -> None:
    rule = checked({"created": {"_lt": "$NOW(-1 day)"}, "role": {"_in": "$CURRENT_ROLES"}})
    assert rule == And(
        (
            Condition(("created",), "_lt", "$NOW(-1 day)"),
            Condition(("role",), "_in", ("$CURRENT_ROLES",)),
        )
    )


def test_validation_refuses_malformed_dynamic_variables() -> None:
    assert "Invalid dynamic variable" in error({"created": {"_lt": "$NOW(soon)"}})


def test_allowed_fields_forbid_filtering_on_unreadable_fields() -> None:
    allowed = {"users": frozenset({"id", "role"}), "roles": frozenset({"id"})}
    assert checked({"role": {"id": USER}}, allowed_fields=allowed)
    with pytest.raises(FieldForbidden, match='"age" in collection "users"'):
        checked({"age": 1}, allowed_fields=allowed)
    with pytest.raises(FieldForbidden, match='"name" in collection "roles"'):
        checked({"role": {"name": "x"}}, allowed_fields=allowed)
    with pytest.raises(FieldForbidden, match='"email" in collection "users"'):
        checked({"email": 1}, allowed_fields={"roles": frozenset({"*"})})


def test_sort_paths_are_validated() -> None:
    assert validate(q("sort=-role.name"), USERS, SCHEMA).sort == (("role.name", True),)
    with pytest.raises(FieldForbidden, match='"nope"'):
        validate(q("sort=nope"), USERS, SCHEMA)
    with pytest.raises(QueryError, match="is a to-many relation"):
        validate(q("sort=users"), ROLES, SCHEMA)
    with pytest.raises(QueryError, match="concealed"):
        validate(q("sort=token"), USERS, SCHEMA)
    with pytest.raises(QueryError, match=re.escape('Invalid field path "role..name"')):
        validate(q("sort=role..name"), USERS, SCHEMA)


def test_aggregates_and_groups_are_validated() -> None:
    query = validate(
        q("aggregate[count]=*&aggregate[sum]=age&groupBy=role&sort=-count,sum.age,role"),
        USERS,
        SCHEMA,
    )
    assert query.sort == (("count", True), ("sum.age", False), ("role", False))
    # `fields` is ignored: a field that does not exist is not looked at.
    assert validate(q("fields=nope&aggregate[count]=*"), USERS, SCHEMA).fields == ("nope",)
    assert validate(q("aggregate[min]=email,created&aggregate[count]=token"), USERS, SCHEMA)
    assert validate(q("groupBy=prefs,active"), USERS, SCHEMA)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("aggregate[sum]=email", '"sum" takes number fields only; "email" is of type "string".'),
        ("aggregate[avgDistinct]=created", '"avgDistinct" takes number fields only'),
        ("aggregate[min]=prefs", '"min" does not take the JSON field "prefs".'),
        ("aggregate[max]=token", '"max" does not take the concealed field "token".'),
        ("aggregate[countDistinct]=password", "does not take the concealed field"),
        ("aggregate[sum]=*", '"aggregate[sum]" takes fields, not "*".'),
        ("aggregate[count]=*,id", '"aggregate[count]" takes "*" or fields, not both.'),
        ("aggregate[count]=role.name", '"aggregate" takes fields of the collection itself'),
        ("groupBy=role.name", '"groupBy" takes fields of the collection itself'),
        ("groupBy=year(created)", "Field functions"),
        ("groupBy=token", 'Cannot group by the concealed field "token".'),
        ("aggregate[count]=*&sort=email", 'Cannot sort by "email"'),
        ("aggregate[sum]=age&sort=sum", 'Cannot sort by "sum"'),
        ("groupBy=role&sort=count", 'Cannot sort by "count"'),
    ],
)
def test_invalid_aggregates_are_query_errors(text: str, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        validate(q(text), USERS, SCHEMA)
    assert message in str(caught.value)


def test_a_group_field_named_like_an_aggregate_is_a_query_error() -> None:
    stock = Collection("stock", "id", (Field("id", T.INTEGER), Field("max", T.INTEGER)))
    assert validate(q("aggregate[min]=id&groupBy=max"), stock, Schema((stock,)))
    with pytest.raises(QueryError, match='The groupBy field "max" has the name of an aggregate'):
        validate(q("aggregate[max]=id&groupBy=max"), stock, Schema((stock,)))


def test_aggregates_of_a_to_many_relation_are_query_errors() -> None:
    with pytest.raises(QueryError, match='cannot take the to-many relation "users"'):
        validate(q("aggregate[count]=users"), ROLES, SCHEMA)
    with pytest.raises(QueryError, match='cannot take the to-many relation "users"'):
        validate(q("groupBy=users"), ROLES, SCHEMA)


def test_aggregated_and_grouped_fields_must_exist_and_be_readable() -> None:
    allowed = {"users": frozenset({"id", "role"})}
    assert validate(q("aggregate[count]=id&groupBy=role"), USERS, SCHEMA, allowed_fields=allowed)
    assert validate(q("aggregate[count]=*"), USERS, SCHEMA, allowed_fields=allowed)
    for text in ("aggregate[sum]=age", "groupBy=email", "aggregate[count]=nope", "groupBy=nope"):
        with pytest.raises(FieldForbidden):
            validate(q(text), USERS, SCHEMA, allowed_fields=allowed)


def test_query_filters_are_validated_with_the_query() -> None:
    query = validate(q("filter[age][_gte]=18"), USERS, SCHEMA)
    assert query.filter == Condition(("age",), "_gte", 18)


# --- Fields -----------------------------------------------------------------------------


def keys_of(collection: str) -> Selection:
    """How "*" reads a to-many relation into `collection`: its items' keys."""
    return Selection(collection, ("id",), keys_only=True)


def test_star_selects_the_stored_fields_and_the_keys_of_to_many_relations() -> None:
    assert select(["*"], ROLES, SCHEMA) == Selection(
        "roles",
        ("id", "name", "parent", "users", "children"),
        (("users", keys_of("users")), ("children", keys_of("roles"))),
    )


@pytest.mark.parametrize("kind", ["bulk", "read_only"])
def test_star_leaves_out_to_many_relations_into_collections_the_service_alone_writes(
    kind: str,
) -> None:
    jobs = Collection(
        "jobs", "id", (Field("id", T.UUID),), aliases=(Alias("codes", "codes", "job"),)
    )
    codes = Collection(
        "codes",
        "id",
        (Field("id", T.UUID), Field("job", T.UUID, relation="jobs")),
        **{kind: True},
    )
    schema = Schema((jobs, codes))
    assert select(["*"], jobs, schema).keys == ("id",)
    assert select(["id", "codes"], jobs, schema).child("codes") == Selection(
        "codes", ("id",), keys_only=True
    )


def test_star_star_adds_one_level_of_relations_and_aliases() -> None:
    selection = select(["*.*"], ROLES, SCHEMA)
    assert selection.keys == ("id", "name", "parent", "users", "children")
    assert selection.child("parent") == select(["*"], ROLES, SCHEMA)
    assert selection.child("users") == Selection("users", tuple(f.name for f in USERS.fields))


def test_dotted_fields_nest_and_a_bare_alias_reads_keys() -> None:
    selection = select(["name", "parent.name", "users"], ROLES, SCHEMA)
    assert selection == Selection(
        "roles",
        ("name", "parent", "users"),
        (("parent", Selection("roles", ("name",))), ("users", keys_of("users"))),
    )


def test_star_selects_only_allowed_fields_and_skips_unreadable_relations() -> None:
    allowed = {"roles": frozenset({"id", "name", "parent", "users"})}
    selection = select(["*.*"], ROLES, SCHEMA, allowed)
    assert selection.keys == ("id", "name", "parent")
    assert selection.child("parent") == Selection("roles", ("id", "name", "parent"))


def test_star_leaves_out_to_many_relations_whose_keys_may_not_be_read() -> None:
    allowed = {"roles": frozenset({"*"}), "users": frozenset({"email"})}
    assert select(["*"], ROLES, SCHEMA, allowed).keys == ("id", "name", "parent", "children")


ONLY_ROLES = {"roles": frozenset({"*"})}


@pytest.mark.parametrize("fields", ["users.*", "users.email", "users", "*,users.*"])
def test_nested_fields_into_an_unreadable_collection_are_forbidden(fields: str) -> None:
    with pytest.raises(FieldForbidden, match='"users" in collection "roles"'):
        select(fields.split(","), ROLES, SCHEMA, ONLY_ROLES)


def test_star_star_keeps_the_bare_key_of_a_many_to_one_into_an_unreadable_collection() -> None:
    selection = select(["*.*"], USERS, SCHEMA, {"users": frozenset({"*"})})
    assert "role" in selection.keys
    assert selection.child("role") is None


@pytest.mark.parametrize("quantifier", ["_some", "_none"])
def test_filters_may_not_cross_into_an_unreadable_collection(quantifier: str) -> None:
    with pytest.raises(FieldForbidden, match='"users" in collection "roles"'):
        checked({"users": {quantifier: {}}}, ROLES, allowed_fields=ONLY_ROLES)


def test_sort_may_not_cross_into_an_unreadable_collection() -> None:
    with pytest.raises(FieldForbidden, match='"role" in collection "users"'):
        validate(q("sort=role.name"), USERS, SCHEMA, allowed_fields={"users": frozenset({"*"})})


def test_a_foreign_key_stays_filterable_when_its_collection_is_unreadable() -> None:
    rule = checked({"role": {"_null": True}}, allowed_fields={"users": frozenset({"*"})})
    assert rule == Condition(("role",), "_null", True)


def test_naming_an_unreadable_field_is_forbidden() -> None:
    allowed = {"roles": frozenset({"name"})}
    with pytest.raises(FieldForbidden, match='"id" in collection "roles"'):
        select(["id"], ROLES, SCHEMA, allowed)
    with pytest.raises(FieldForbidden, match='"parent" in collection "roles"'):
        select(["parent.name"], ROLES, SCHEMA, allowed)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (["*.name"], '"*" can only be followed by "*"'),
        (["year(created)"], "Field functions"),
        (["email.x"], "is not a relation"),
        (["role..name"], "Invalid field path"),
        ([".".join(["parent"] * 11)], "Max relational depth exceeded."),
    ],
)
def test_invalid_field_paths_are_query_errors(fields: list[str], message: str) -> None:
    collection = ROLES if fields[0].startswith("parent") else USERS
    with pytest.raises(QueryError, match=message):
        select(fields, collection, SCHEMA)


def test_wildcard_explosions_are_capped() -> None:
    with pytest.raises(QueryError, match="Too many related fields"):
        select([".".join(["*"] * MAX_RELATIONAL_DEPTH)], ROLES, SCHEMA)


def test_fields_are_validated_with_the_query() -> None:
    with pytest.raises(FieldForbidden, match='"nope"'):
        validate(q("fields=id,nope"), USERS, SCHEMA)


# --- Dynamic variables ------------------------------------------------------------------

NOW = datetime(2024, 3, 31, 12, 30, 15, 123456, tzinfo=UTC)
CONTEXT = VariableContext(user_id=USER, role_id="r1", roles=("r1", "r0"), policies=("p1",), now=NOW)


def resolved(value: Any, operator: str = "_eq") -> Any:
    result = resolve_variables(Condition(("x",), operator, value), CONTEXT)
    assert isinstance(result, Condition)
    return result.value


def test_current_user_role_roles_and_policies() -> None:
    assert resolved("$CURRENT_USER") == USER
    assert resolved("$CURRENT_ROLE") == "r1"
    assert resolved("$CURRENT_ROLES", "_in") == ["r1", "r0"]
    assert resolved("$CURRENT_POLICIES", "_in") == ["p1"]


def test_list_variables_inside_lists_add_their_items() -> None:
    assert resolved(["$CURRENT_ROLES", "x", "$CURRENT_USER"], "_in") == ["r1", "r0", "x", USER]


def test_an_anonymous_caller_has_a_null_user() -> None:
    anonymous = VariableContext(None, None, (), (), NOW)
    result = resolve_variables(parse_filter({"id": "$CURRENT_USER"}), anonymous)
    assert validate(result, USERS, SCHEMA) == Condition(("id",), "_null", True)


def test_now_is_the_stored_date_time_text() -> None:
    assert resolved("$NOW") == "2024-03-31T12:30:15.123Z"


@pytest.mark.parametrize(
    ("variable", "expected"),
    [
        ("$NOW(-1 year)", "2023-03-31T12:30:15.123Z"),
        ("$NOW(+2 hours)", "2024-03-31T14:30:15.123Z"),
        ("$NOW(-7)", "2024-03-24T12:30:15.123Z"),
        ("$NOW(1 month)", "2024-04-30T12:30:15.123Z"),
        ("$NOW(-1 mth)", "2024-02-29T12:30:15.123Z"),
        ("$NOW(3d)", "2024-04-03T12:30:15.123Z"),
        ("$NOW(-2 weeks)", "2024-03-17T12:30:15.123Z"),
        ("$NOW(30 minutes)", "2024-03-31T13:00:15.123Z"),
        ("$NOW(-15 s)", "2024-03-31T12:30:00.123Z"),
        ("$NOW(+877 ms)", "2024-03-31T12:30:16.000Z"),
        ("$NOW(1 HRS)", "2024-03-31T13:30:15.123Z"),
        ("$NOW( - 1 Years )", "2023-03-31T12:30:15.123Z"),
    ],
)
def test_now_adjustments(variable: str, expected: str) -> None:
    assert resolved(variable) == expected


@pytest.mark.parametrize("variable", ["$NOW(soon)", "$NOW(1 fortnight)", "$NOW(1.5 days)"])
def test_malformed_now_adjustments_are_query_errors(variable: str) -> None:
    with pytest.raises(QueryError, match="Invalid dynamic variable"):
        resolved(variable)


def test_now_adjustments_out_of_the_calendar_are_query_errors() -> None:
    with pytest.raises(QueryError, match="out of the range of dates"):
        resolved("$NOW(+9000 years)")
    with pytest.raises(QueryError, match="out of the range of dates"):
        resolved("$NOW(999999999999 days)")


def test_variable_field_paths_are_not_supported() -> None:
    with pytest.raises(QueryError, match="field path"):
        resolved("$CURRENT_USER.role")


def test_other_values_are_left_alone() -> None:
    assert resolved("$NOWHERE") == "$NOWHERE"
    assert resolved("plain") == "plain"
    assert resolved(5) == 5


def test_variables_are_resolved_throughout_the_filter() -> None:
    raw = {
        "_or": [{"role": {"users": {"_none": {"id": "$CURRENT_USER"}}}}, {"id": "$CURRENT_USER"}]
    }
    result = resolve_variables(parse_filter(raw), CONTEXT)
    assert "$CURRENT_USER" not in repr(result)
    assert repr(result).count(USER) == 2


# --- Evaluation in Python ---------------------------------------------------------------

ITEM = {
    "id": USER,
    "email": "Ada@Example.org",
    "bio": "",
    "age": 36,
    "score": 4.5,
    "active": True,
    "created": "2024-03-01T10:00:00+02:00",
    "prefs": {"a": 1},
    "role": None,
}


def holds(raw: Any, item: dict[str, Any] = ITEM, **options: Any) -> bool:
    purpose = "validation" if "partial" in options else "query"
    return matches(checked(raw, purpose=purpose), item, USERS, **options)


@pytest.mark.parametrize(
    ("filter", "expected"),
    [
        ({"age": 36}, True),
        ({"age": "36"}, True),
        ({"age": {"_neq": 36}}, False),
        ({"age": {"_gt": 30, "_lt": 40}}, True),
        ({"age": {"_between": [36, 40]}}, True),
        ({"age": {"_nbetween": [36, 40]}}, False),
        ({"age": {"_in": [1, 36]}}, True),
        ({"age": {"_nin": "1,36"}}, False),
        ({"score": {"_gte": 4.5}}, True),
        ({"active": "true"}, True),
        ({"active": {"_neq": True}}, False),
        ({"created": {"_eq": "2024-03-01T08:00:00Z"}}, True),
        ({"created": {"_lt": "2024-03-01T08:00:01Z"}}, True),
        ({"email": {"_contains": "Example"}}, True),
        ({"email": {"_contains": "example"}}, False),
        ({"email": {"_icontains": "EXAMPLE"}}, True),
        ({"email": {"_nicontains": "EXAMPLE"}}, False),
        ({"email": {"_starts_with": "Ada"}}, True),
        ({"email": {"_istarts_with": "ada"}}, True),
        ({"email": {"_nstarts_with": "Ada"}}, False),
        ({"email": {"_ends_with": ".org"}}, True),
        ({"email": {"_niends_with": ".ORG"}}, False),
        ({"bio": {"_empty": True}}, True),
        ({"bio": {"_nempty": True}}, False),
        ({"bio": {"_null": True}}, False),
        ({"prefs": {"_nnull": True}}, True),
        ({"role": {"_null": True}}, True),
        ({"_or": [{"age": 1}, {"email": {"_ends_with": "org"}}]}, True),
        ({"_and": [{"age": 36}, {"active": False}]}, False),
        ({}, True),
    ],
)
def test_conditions_on_stored_fields(filter: dict[str, Any], expected: bool) -> None:
    assert holds(filter) is expected


def test_only_null_checks_hold_on_null_values() -> None:
    item = {"age": None}
    assert holds({"age": {"_neq": 1}}, item) is False
    assert holds({"age": {"_nin": [1]}}, item) is False
    assert holds({"age": {"_nnull": True}}, item) is False
    assert holds({"age": {"_null": True}}, item) is True


def test_values_that_do_not_fit_the_field_type_match_nothing() -> None:
    assert holds({"age": {"_neq": 1}}, {"age": "old"}) is False
    assert holds({"created": {"_lt": "2030-01-01"}}, {"created": "yesterday"}) is False
    assert holds({"email": {"_eq": "x"}}, {"email": ["x"]}) is False


def test_a_missing_key_of_a_row_is_null() -> None:
    assert holds({"age": {"_null": True}}, {}) is True
    assert holds({"age": 1}, {}) is False


def test_many_to_one_conditions_need_the_nested_item_and_the_schema() -> None:
    rule = checked({"role": {"name": "admin"}})
    nested = {"role": {"id": "r1", "name": "admin"}}
    assert matches(rule, nested, USERS, schema=SCHEMA) is True
    assert matches(rule, nested, USERS) is False
    assert matches(rule, {"role": "r1"}, USERS, schema=SCHEMA) is False
    assert matches(rule, {"role": None}, USERS, schema=SCHEMA) is False


def test_to_many_conditions_look_at_lists_of_nested_items() -> None:
    some = checked({"users": {"age": {"_gt": 30}}}, ROLES)
    none = checked({"users": {"_none": {"age": {"_gt": 30}}}}, ROLES)
    role = {"users": [{"age": 20}, {"age": 40}]}
    assert matches(some, role, ROLES, schema=SCHEMA) is True
    assert matches(none, role, ROLES, schema=SCHEMA) is False
    assert matches(none, {"users": []}, ROLES, schema=SCHEMA) is True
    assert matches(some, {"users": ["u1"]}, ROLES, schema=SCHEMA) is False


def test_a_partial_payload_passes_conditions_on_keys_it_does_not_carry() -> None:
    assert holds({"age": {"_gt": 18}, "email": {"_nnull": True}}, {}, partial=True) is True
    assert holds({"age": {"_gt": 18}}, {"age": 5}, partial=True) is False
    assert holds({"role": {"name": "x"}}, {}, partial=True, schema=SCHEMA) is True


def test_submitted_asks_for_the_key() -> None:
    assert holds({"age": {"_submitted": True}}, {}, partial=True) is False
    assert holds({"age": {"_submitted": True}}, {"age": None}, partial=True) is True
    assert holds({"age": {"_submitted": False}}, {}, partial=True) is True


def test_regex_searches_the_value_and_drops_surrounding_slashes() -> None:
    assert holds({"email": {"_regex": "@example"}}, partial=False) is False
    assert holds({"email": {"_regex": "/@Example/"}}, ITEM, partial=True) is True
    assert holds({"email": {"_regex": "^[a-z]+@"}}, ITEM, partial=True) is False


def test_a_variable_resolved_to_null_after_validation_is_a_null_check() -> None:
    rule = checked({"role": "$CURRENT_ROLE"})
    anonymous = resolve_variables(rule, VariableContext(None, None, (), (), NOW))
    assert matches(anonymous, {"role": None}, USERS) is True
    assert matches(anonymous, {"role": "r1"}, USERS) is False
