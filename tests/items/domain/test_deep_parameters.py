"""`deep`, `alias` and `export` read from a URL or a SEARCH body, and checked against the
schema; random input is refused with a query error, never anything else."""

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.collections.deep import NESTED_DEFAULT_LIMIT, NestedQuery
from domain.collections.filters import Condition
from domain.collections.item_query import ItemQuery, parse_query, query_from_object
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.collections.validation import validate
from tests.items.domain.test_query_language import ROLES, SCHEMA, q


def test_deep_in_bracket_form_is_the_json_form() -> None:
    brackets = q(
        "deep[users][_filter][email][_eq]=a@b&deep[users][_sort][]=-age&deep[users][_limit]=3"
    )
    text = '{"users": {"_filter": {"email": {"_eq": "a@b"}}, "_sort": ["-age"], "_limit": 3}}'
    assert brackets == q(f"deep={text}")
    assert brackets.deep == (
        (
            "users",
            NestedQuery(filter=Condition(("email",), "_eq", "a@b"), sort=(("age", True),), limit=3),
        ),
    )


def test_deep_reads_every_parameter_and_nests_by_relation_name() -> None:
    query = query_from_object(
        {
            "deep": {
                "children": {
                    "_limit": -1,
                    "_offset": 4,
                    "_search": "ops",
                    "_alias": {"title": "name"},
                    "users": {"_limit": 2, "_page": 3},
                }
            }
        }
    )
    ((name, children),) = query.deep
    assert name == "children"
    assert (children.limit, children.offset, children.search) == (None, 4, "ops")
    assert children.alias == (("title", "name"),)
    assert children.deep == (("users", NestedQuery(limit=2, offset=4)),)


def test_a_relation_deep_sets_no_limit_for_reads_a_hundred_items() -> None:
    ((_, users),) = q("deep[users][_sort]=email").deep
    assert users.limit == NESTED_DEFAULT_LIMIT == 100


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("deep={nope", "Invalid JSON for deep object."),
        ("deep=[1]", '"deep" must be an object of relations.'),
        ("deep[users]=3", '"deep.users" must be an object.'),
        ("deep[users][_fields]=id", '"_fields" is not allowed in "deep"'),
        ('deep={"users": {"_deep": {}}}', '"_deep" is not allowed in "deep"'),
        ("deep[users][_group]=x", 'Unknown "deep" parameter "_group"'),
        ("deep[_limit]=1", '"deep" takes relation names, not "_limit"'),
        ("deep[users][_limit]=-2", '"deep.users._limit" must be an integer'),
        ("deep[users][_offset]=x", '"deep.users._offset" must be an integer'),
        ('deep={"users": {"_filter": "{x"}}', "Invalid JSON for filter object."),
        ('deep={"users": {"_sort": [1]}}', "must be a string or an array of strings"),
        ("alias={x", "Invalid JSON for alias object."),
        ("alias[a.b]=name", '"alias" keys and values must be strings without "."'),
        ("alias[a]=role.name", '"alias" keys and values must be strings without "."'),
        ('alias={"a": 1}', '"alias" keys and values must be strings without "."'),
        ("alias[y]=year(created)", "Field functions"),
        ("alias=[1]", '"alias" must be an object'),
        ("export=pdf", '"export" must be one of csv, csv_utf8, json, xml, yaml.'),
        ("export=csv&export=json", '"export" must be given once'),
    ],
)
def test_malformed_deep_alias_or_export_is_a_query_error(text: str, message: str) -> None:
    with pytest.raises(QueryError) as caught:
        q(text)
    assert message in str(caught.value)


@pytest.mark.parametrize("format", ["csv", "csv_utf8", "json", "xml", "yaml"])
def test_export_takes_the_directus_formats(format: str) -> None:
    assert q(f"export={format}").export == format
    assert query_from_object({"export": format}).export == format


def test_deep_names_the_alias_of_a_relation() -> None:
    query = validate(q("alias[staff]=users&deep[staff][_filter][age][_gt]=30"), ROLES, SCHEMA)
    ((name, staff),) = query.deep
    assert name == "staff"
    assert staff.filter == Condition(("age",), "_gt", 30)


def test_deep_filters_are_checked_against_the_caller_s_fields() -> None:
    allowed = {"roles": frozenset({"*"}), "users": frozenset({"id", "email"})}
    with pytest.raises(FieldForbidden, match='"age" in collection "users"'):
        validate(q("deep[users][_filter][age][_gt]=30"), ROLES, SCHEMA, allowed_fields=allowed)


def test_deep_into_a_collection_the_caller_may_not_read_is_forbidden() -> None:
    with pytest.raises(FieldForbidden, match='"users" in collection "roles"'):
        validate(
            q("deep[users][_limit]=1"), ROLES, SCHEMA, allowed_fields={"roles": frozenset({"*"})}
        )


#: Names of relations, fields (of both test schemas) and parameters, and one of nothing.
NAMES = st.sampled_from(
    ["users", "children", "parent", "members", "books", "team", "name", "age", "x", "_limit"]
)
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 200), st.text(max_size=8), NAMES)
JSON_VALUES = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.one_of(
                NAMES,
                st.sampled_from(
                    ["_filter", "_sort", "_limit", "_offset", "_page", "_search", "_alias"]
                ),
                st.text(max_size=5),
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(deep=JSON_VALUES, alias=JSON_VALUES, fields=st.lists(NAMES, max_size=3))
def test_random_deep_and_alias_are_read_or_refused_as_query_errors(
    deep: Any, alias: Any, fields: list[str]
) -> None:
    params = [("deep", json.dumps(deep)), ("alias", json.dumps(alias))]
    params += [("fields", name) for name in fields]
    try:
        query = parse_query(params)
        validate(query, ROLES, SCHEMA)
    except (QueryError, FieldForbidden):
        pass


def test_a_query_without_deep_or_alias_holds_none() -> None:
    assert (ItemQuery().deep, ItemQuery().alias, ItemQuery().export) == ((), (), None)
