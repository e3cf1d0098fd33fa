"""Schema discovery (`/collections`, `/fields`, `/relations`, `/server/info`): Directus's
shapes, read from the catalogue, limited to what the caller may read, never written."""

from typing import Any

import pytest

from api.epcis.discovery import vendor_version
from application.items.catalogue import build_schema
from tests.access.helpers import Client, call, code, ok, user_with

#: A role that may read products (some fields) and organisations, nothing else.
PRODUCT_READER = (
    {"collection": "product", "action": "read", "fields": ["id", "product_name", "brand_owner"]},
    {"collection": "organisation", "action": "read", "fields": ["*"]},
)


def by_field(fields: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["field"]: f for f in fields}


async def public_may_read(client: Client, collection: str) -> None:
    """Give the public policy read access to a collection."""
    public = await ok(client, "GET", "/policies", params={"filter": '{"name": {"_eq": "Public"}}'})
    permission = {"policy": public[0]["id"], "collection": collection, "action": "read"}
    await ok(client, "POST", "/permissions", {**permission, "fields": ["*"]})


async def test_an_admin_sees_every_collection_of_the_catalogue(client: Client) -> None:
    listed = await ok(client, "GET", "/collections")
    names = [c["collection"] for c in listed]
    assert len(names) == len(list(build_schema(multi_tenant=False)))
    assert {"product", "shipment_notice_line_item", "directus_users", "directus_revisions"} <= set(
        names
    )
    assert "users" not in names


async def test_system_collections_carry_their_directus_names_and_the_system_flag(
    client: Client,
) -> None:
    users = await ok(client, "GET", "/collections/directus_users")
    product = await ok(client, "GET", "/collections/product")
    assert users["collection"] == users["meta"]["collection"] == "directus_users"
    assert users["meta"]["system"] is True
    assert product["meta"]["system"] is False
    assert product["meta"]["singleton"] is False
    assert product["schema"] == {"name": "product", "comment": None}
    assert (await ok(client, "GET", "/fields/directus_users/email"))["meta"]["system"] is True
    assert "system" not in (await ok(client, "GET", "/fields/product/gtin"))["meta"]


async def test_a_collection_is_also_found_by_the_name_its_routes_and_permissions_use(
    client: Client,
) -> None:
    assert (await ok(client, "GET", "/collections/users"))["collection"] == "directus_users"
    fields = await ok(client, "GET", "/fields/users")
    assert {f["collection"] for f in fields} == {"directus_users"}


async def test_field_types_and_schema_follow_the_catalogue(client: Client) -> None:
    fields = by_field(await ok(client, "GET", "/fields/product"))
    assert fields["id"]["type"] == "string"
    assert fields["id"]["schema"]["is_primary_key"] is True
    assert fields["net_weight"]["type"] == "float"
    assert fields["finished_product"]["type"] == "boolean"
    assert fields["nutrients"]["type"] == "json"
    assert fields["date_created"]["type"] == "dateTime"
    assert fields["date_created"]["meta"]["special"] == ["date-created"]
    assert fields["date_created"]["meta"]["readonly"] is True
    owner = fields["brand_owner"]
    assert owner["meta"]["special"] == ["m2o"]
    assert (owner["schema"]["foreign_key_table"], owner["schema"]["foreign_key_column"]) == (
        "organisation",
        "id",
    )
    password = (await ok(client, "GET", "/fields/directus_users/password"))["meta"]
    assert password["special"] == ["hash", "conceal"]


async def test_to_many_relations_are_alias_fields_flagged_o2m_or_m2m(client: Client) -> None:
    fields = by_field(await ok(client, "GET", "/fields/product"))
    assert fields["translations"]["type"] == "alias"
    assert fields["translations"]["schema"] is None
    assert fields["translations"]["meta"]["special"] == ["o2m"]
    assert fields["certifications"]["meta"]["special"] == ["m2m"]


async def test_enumerations_offer_their_choices(client: Client) -> None:
    status = await ok(client, "GET", "/fields/shipment_notice/status")
    assert status["meta"]["interface"] == "select-dropdown"
    assert status["meta"]["options"]["choices"][0] == {"text": "draft", "value": "draft"}
    assert status["schema"]["default_value"] == "draft"


async def test_relations_list_many_to_one_fields_with_their_to_many_side(client: Client) -> None:
    relations = await ok(client, "GET", "/relations/product_certifications")
    product = next(r for r in relations if r["field"] == "product_id")
    assert product["related_collection"] == "product"
    assert product["meta"]["one_field"] == "certifications"
    assert product["meta"]["junction_field"] == "certification_id"
    assert product["schema"]["on_delete"] == "CASCADE"
    owner = await ok(client, "GET", "/relations/product/brand_owner")
    assert owner["related_collection"] == "organisation"
    assert owner["meta"]["one_field"] is None
    assert owner["schema"]["on_delete"] == "SET NULL"
    everything = await ok(client, "GET", "/relations")
    assert {"collection": "directus_users", "field": "role"}.items() <= next(
        r for r in everything if r["collection"] == "directus_users"
    ).items()


async def test_a_limited_role_sees_only_the_collections_and_fields_it_may_read(
    client: Client,
) -> None:
    reader = await user_with(client, *PRODUCT_READER)
    listed = await ok(client, "GET", "/collections", token=reader.token)
    assert sorted(c["collection"] for c in listed) == ["organisation", "product"]
    fields = await ok(client, "GET", "/fields/product", token=reader.token)
    assert [f["field"] for f in fields] == ["id", "product_name", "brand_owner"]
    everywhere = await ok(client, "GET", "/fields", token=reader.token)
    assert {f["collection"] for f in everywhere} == {"organisation", "product"}


async def test_a_limited_role_sees_only_relations_between_what_it_may_read(
    client: Client,
) -> None:
    reader = await user_with(client, *PRODUCT_READER)
    relations = await ok(client, "GET", "/relations", token=reader.token)
    # Not `product.product_manufacturer` (a field it may not read), nor the audit fields
    # (users are not readable).
    assert sorted((r["collection"], r["field"]) for r in relations) == [
        ("organisation", "parent_organisation"),
        ("product", "brand_owner"),
    ]


@pytest.mark.parametrize(
    "path",
    [
        "/collections/lot",
        "/fields/lot",
        "/fields/product/gtin",
        "/relations/lot",
        "/relations/product/product_manufacturer",
    ],
)
async def test_what_a_role_may_not_read_is_forbidden(client: Client, path: str) -> None:
    reader = await user_with(client, *PRODUCT_READER)
    status, body = await call(client, "GET", path, token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")


@pytest.mark.parametrize(
    "path",
    [
        "/collections/nothing",
        "/fields/nothing",
        "/fields/product/nothing",
        "/relations/nothing",
        "/relations/product/product_name",
    ],
)
async def test_an_unknown_collection_or_field_is_forbidden_even_to_an_admin(
    client: Client, path: str
) -> None:
    status, body = await call(client, "GET", path)
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_the_public_without_permissions_discovers_nothing(client: Client) -> None:
    assert await ok(client, "GET", "/collections", token="") == []
    assert await ok(client, "GET", "/fields", token="") == []
    status, body = await call(client, "GET", "/fields/product", token="")
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_the_public_discovers_what_the_public_policy_lets_it_read(client: Client) -> None:
    await public_may_read(client, "product")
    listed = await ok(client, "GET", "/collections", token="")
    assert [c["collection"] for c in listed] == ["product"]
    assert (await ok(client, "GET", "/fields/product/gtin", token=""))["type"] == "string"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/collections"),
        ("PATCH", "/collections/product"),
        ("DELETE", "/collections/product"),
        ("POST", "/fields/product"),
        ("PATCH", "/fields/product/gtin"),
        ("DELETE", "/fields/product/gtin"),
        ("POST", "/relations"),
        ("PATCH", "/relations/product/brand_owner"),
        ("DELETE", "/relations/product/brand_owner"),
    ],
)
async def test_the_schema_cannot_be_written_even_by_an_admin(
    client: Client, method: str, path: str
) -> None:
    status, body = await call(client, method, path, {"collection": "x", "field": "y"})
    assert (status, code(body)) == (403, "FORBIDDEN")
    assert "fixed" in body["errors"][0]["message"]


async def test_server_info_without_a_token_describes_the_project_only(client: Client) -> None:
    status, body = await call(client, "GET", "/server/info", token="")
    assert status == 200
    assert body["data"]["project"]["project_name"] == "Tracepoint"
    assert set(body["data"]) == {"project"}


async def test_server_info_tells_users_the_limits_and_admins_the_version(client: Client) -> None:
    user = await user_with(client)
    as_user = await ok(client, "GET", "/server/info", token=user.token)
    assert as_user["queryLimit"] == {"default": 100, "max": -1}
    assert "version" not in as_user
    assert (await ok(client, "GET", "/server/info"))["version"] == vendor_version()


async def test_server_info_refuses_a_wrong_token(client: Client) -> None:
    status, body = await call(client, "GET", "/server/info", token="not-a-token")
    assert (status, code(body)) == (401, "INVALID_CREDENTIALS")
