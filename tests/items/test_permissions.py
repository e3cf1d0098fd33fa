"""Permissions of the access-control issue on the item collections: collections, fields
and item rules apply to `/items/<collection>` like everywhere else."""

from tests.access.helpers import Client, call, ok, user_with


async def test_a_user_without_a_permission_on_the_collection_is_forbidden(client: Client) -> None:
    user = await user_with(client, {"collection": "location", "action": "read"})
    status, _ = await call(client, "GET", "/items/product", token=user.token)
    assert status == 403
    status, _ = await call(client, "GET", "/items/location", token=user.token)
    assert status == 200


async def test_an_item_rule_on_user_created_limits_a_user_to_their_own_items(
    client: Client,
) -> None:
    own = {"user_created": {"_eq": "$CURRENT_USER"}}
    user = await user_with(
        client,
        {"collection": "product", "action": "create", "fields": ["*"]},
        {"collection": "product", "action": "read", "permissions": own, "fields": ["*"]},
        {"collection": "product", "action": "update", "permissions": own, "fields": ["*"]},
    )
    await ok(client, "POST", "/items/product", {"product_name": "Theirs"})
    mine = await ok(client, "POST", "/items/product", {"product_name": "Mine"}, token=user.token)
    listed = await ok(client, "GET", "/items/product", token=user.token)
    assert [p["product_name"] for p in listed] == ["Mine"]
    theirs = await ok(
        client, "GET", "/items/product", params={"filter[product_name][_eq]": "Theirs"}
    )
    status, _ = await call(
        client, "PATCH", f"/items/product/{theirs[0]['id']}", {"color": "red"}, token=user.token
    )
    assert status == 403
    updated = await ok(
        client, "PATCH", f"/items/product/{mine['id']}", {"color": "red"}, token=user.token
    )
    assert updated["color"] == "red"


async def test_fields_outside_a_permission_are_not_read_or_written(client: Client) -> None:
    user = await user_with(
        client,
        {"collection": "organisation", "action": "read", "fields": ["id", "organisation_name"]},
        {"collection": "organisation", "action": "create", "fields": ["organisation_name"]},
    )
    await ok(client, "POST", "/items/organisation", {"organisation_name": "A", "city": "Oslo"})
    listed = await ok(client, "GET", "/items/organisation", token=user.token)
    assert listed == [{"id": listed[0]["id"], "organisation_name": "A"}]
    status, _ = await call(
        client, "POST", "/items/organisation", {"city": "Bergen"}, token=user.token
    )
    assert status == 403


async def test_nested_line_items_need_their_own_permission(client: Client) -> None:
    user = await user_with(
        client,
        {"collection": "shipment_notice", "action": "create", "fields": ["*"]},
        {"collection": "shipment_notice", "action": "read", "fields": ["*"]},
    )
    status, _ = await call(
        client,
        "POST",
        "/items/shipment_notice",
        {"line_items": [{"package_id": "P1"}]},
        token=user.token,
    )
    assert status == 403
    assert await ok(client, "GET", "/items/shipment_notice") == []
