"""The catalogue described as Directus describes a schema: every type is one of
Directus's, every to-many relation an alias, every relation between known collections."""

from typing import Any

import pytest

from application.items.catalogue import DIRECTUS_NAMES, build_schema
from application.items.descriptions import (
    collection_description,
    field_descriptions,
    relation_descriptions,
)
from domain.collections.schema import Collection

DIRECTUS_TYPES = {
    "alias", "uuid", "string", "text", "integer", "float", "boolean", "dateTime", "date",
    "json", "hash",
}  # fmt: skip
SCHEMA = build_schema(multi_tenant=True)
NAMES = {collection_description(c)["collection"] for c in SCHEMA}


@pytest.mark.parametrize("collection", list(SCHEMA), ids=lambda c: c.name)
def test_every_field_has_a_directus_type(collection: Collection) -> None:
    for field in field_descriptions(SCHEMA, collection):
        assert field["type"] in DIRECTUS_TYPES, field["field"]
        assert (field["schema"] is None) == (field["type"] == "alias")


def test_aliases_through_a_junction_are_many_to_many_and_others_one_to_many() -> None:
    for collection in SCHEMA:
        described = {f["field"]: f for f in field_descriptions(SCHEMA, collection)}
        for alias in collection.aliases:
            expected = "m2m" if SCHEMA[alias.collection].junction else "o2m"
            assert described[alias.name]["meta"]["special"] == [expected]


def test_relations_name_collections_by_their_discovered_names() -> None:
    for collection in SCHEMA:
        for relation in relation_descriptions(SCHEMA, collection):
            assert {relation["collection"], relation["related_collection"]} <= NAMES
    assert set(DIRECTUS_NAMES.values()) <= NAMES


def relation(collection: str, field: str) -> dict[str, Any]:
    described = relation_descriptions(SCHEMA, SCHEMA[collection])
    return next(r for r in described if r["field"] == field)


def test_a_junction_relation_names_the_far_side_of_its_many_to_many() -> None:
    user = relation("access", "user")
    assert user["related_collection"] == "directus_users"
    assert (user["meta"]["one_field"], user["meta"]["junction_field"]) == ("policies", "policy")


def test_what_deleting_the_related_item_does_is_the_services_own_rule() -> None:
    assert relation("access", "policy")["schema"]["on_delete"] == "CASCADE"
    assert relation("product", "brand_owner")["schema"]["on_delete"] == "SET NULL"
    assert relation("revisions", "activity")["schema"]["on_delete"] == "NO ACTION"
