"""The system collections through the API, as the admin: list, read, create, update,
delete, one or many, with the Directus envelopes and error codes."""

from typing import Any

from tests.access.helpers import Client, call, code, ok

BOOTSTRAP_ADMIN = "admin@example.com"


async def test_a_created_role_is_answered_and_can_be_read_back(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Operators", "icon": "badge"})
    assert role["name"] == "Operators"
    assert await ok(client, "GET", f"/roles/{role['id']}") == role


async def test_a_list_answers_data_as_an_array(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": "a"}, {"name": "b"}])
    status, body = await call(client, "GET", "/folders", params={"sort": "name"})
    assert status == 200
    assert [f["name"] for f in body["data"]] == ["a", "b"]
    assert "meta" not in body


async def test_creating_an_array_answers_every_created_item(client: Client) -> None:
    created = await ok(
        client,
        "POST",
        "/translations",
        [
            {"key": "hello", "language": "en-US", "value": "Hello"},
            {"key": "hello", "language": "de-DE", "value": "Hallo"},
        ],
    )
    assert [t["language"] for t in created] == ["en-US", "de-DE"]


async def test_an_update_answers_the_updated_item(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "old"})
    updated = await ok(client, "PATCH", f"/folders/{folder['id']}", {"name": "new"})
    assert updated == {**folder, "name": "new"}


async def test_a_batch_update_changes_every_key(client: Client) -> None:
    a, b = await ok(client, "POST", "/folders", [{"name": "a"}, {"name": "b"}])
    updated = await ok(
        client, "PATCH", "/folders", {"keys": [a["id"], b["id"]], "data": {"name": "z"}}
    )
    assert [f["name"] for f in updated] == ["z", "z"]


async def test_a_deleted_item_answers_204_and_is_gone(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "gone"})
    status, body = await call(client, "DELETE", f"/folders/{folder['id']}")
    assert (status, body) == (204, None)
    status, body = await call(client, "GET", f"/folders/{folder['id']}")
    assert status == 403
    assert code(body) == "FORBIDDEN"


async def test_a_batch_delete_removes_every_key(client: Client) -> None:
    a, b, c = await ok(client, "POST", "/folders", [{"name": "a"}, {"name": "b"}, {"name": "c"}])
    status, _ = await call(client, "DELETE", "/folders", [a["id"], b["id"]])
    assert status == 204
    assert [f["id"] for f in await ok(client, "GET", "/folders")] == [c["id"]]


async def test_a_missing_item_answers_403_not_404(client: Client) -> None:
    status, body = await call(client, "GET", "/roles/6f9619ff-8b86-d011-b42d-00c04fc964ff")
    assert status == 403
    assert code(body) == "FORBIDDEN"


async def test_a_malformed_key_answers_403(client: Client) -> None:
    for path in ("/roles/not-a-uuid", "/permissions/abc"):
        status, body = await call(client, "GET", path)
        assert status == 403, path
        assert code(body) == "FORBIDDEN"


async def test_updating_a_missing_key_changes_nothing_and_answers_403(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "kept"})
    missing = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
    status, _ = await call(
        client, "PATCH", "/folders", {"keys": [folder["id"], missing], "data": {"name": "x"}}
    )
    assert status == 403
    assert (await ok(client, "GET", f"/folders/{folder['id']}"))["name"] == "kept"


async def test_an_unknown_field_is_invalid_payload(client: Client) -> None:
    status, body = await call(client, "POST", "/roles", {"name": "x", "colour": "red"})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"
    assert "colour" in body["errors"][0]["message"]


async def test_malformed_json_is_invalid_payload(client: Client) -> None:
    status, body = await call(client, "POST", "/roles", b'{"name": ')
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_a_missing_required_field_is_invalid_payload(client: Client) -> None:
    status, body = await call(client, "POST", "/permissions", {"collection": "roles"})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_a_filter_that_is_not_json_is_invalid_query(client: Client) -> None:
    status, body = await call(client, "GET", "/roles", params={"filter": "{name"})
    assert status == 400
    assert code(body) == "INVALID_QUERY"


async def test_an_unknown_filter_operator_is_invalid_query(client: Client) -> None:
    status, body = await call(
        client, "GET", "/roles", params={"filter": '{"name": {"_like": "x"}}'}
    )
    assert status == 400
    assert code(body) == "INVALID_QUERY"


async def test_filtering_on_an_unknown_field_is_forbidden(client: Client) -> None:
    status, body = await call(
        client, "GET", "/roles", params={"filter": '{"colour": {"_eq": "x"}}'}
    )
    assert status == 403
    assert code(body) == "FORBIDDEN"


async def test_filter_sort_limit_and_meta_apply_to_lists(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": n} for n in ("c", "a", "b", "d")])
    status, body = await call(
        client,
        "GET",
        "/folders",
        params={
            "filter": '{"name": {"_neq": "d"}}',
            "sort": "-name",
            "limit": "2",
            "meta": "total_count,filter_count",
            "fields": "name",
        },
    )
    assert status == 200
    assert body["data"] == [{"name": "c"}, {"name": "b"}]
    assert body["meta"] == {"total_count": 4, "filter_count": 3}


async def test_search_method_takes_the_query_from_the_body(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": "alpha"}, {"name": "beta"}])
    status, body = await call(
        client,
        "SEARCH",
        "/folders",
        {"query": {"filter": {"name": {"_eq": "beta"}}, "fields": ["name"]}},
    )
    assert status == 200
    assert body["data"] == [{"name": "beta"}]


async def test_search_refuses_other_keys_than_query_and_keys(client: Client) -> None:
    status, body = await call(client, "SEARCH", "/folders", {"filter": {}})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_an_unknown_route_is_route_not_found(client: Client) -> None:
    status, body = await call(client, "GET", "/nothing-here")
    assert status == 404
    assert code(body) == "ROUTE_NOT_FOUND"


async def test_without_a_token_the_public_policy_forbids_everything(client: Client) -> None:
    status, body = await call(client, "GET", "/roles", token="")
    assert status == 403
    assert code(body) == "FORBIDDEN"


async def test_passwords_and_tokens_are_concealed(client: Client) -> None:
    user = await ok(
        client,
        "POST",
        "/users",
        {"email": "c@example.com", "password": "secret-1", "token": "t" * 24},
    )
    assert user["password"] == "**********"
    assert user["token"] == "**********"
    assert user["tfa_secret"] is None


async def test_e_mail_addresses_are_unique_without_case(client: Client) -> None:
    await ok(client, "POST", "/users", {"email": "Dup@Example.com", "password": "x-1"})
    status, body = await call(
        client, "POST", "/users", {"email": "dup@example.com", "password": "x-2"}
    )
    assert status == 400
    assert code(body) == "RECORD_NOT_UNIQUE"


async def test_a_freed_e_mail_address_can_be_used_again(client: Client) -> None:
    user = await ok(client, "POST", "/users", {"email": "move@example.com"})
    await ok(client, "PATCH", f"/users/{user['id']}", {"email": "moved@example.com"})
    again = await ok(client, "POST", "/users", {"email": "move@example.com"})
    assert again["email"] == "move@example.com"


async def test_the_tfa_secret_cannot_be_set_through_the_api(client: Client) -> None:
    user = await ok(client, "POST", "/users", {"email": "t@example.com"})
    status, body = await call(client, "PATCH", f"/users/{user['id']}", {"tfa_secret": "ABC"})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_permissions_get_increasing_integer_ids(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "p"})
    rows = await ok(
        client,
        "POST",
        "/permissions",
        [
            {"policy": policy["id"], "collection": "roles", "action": "read"},
            {"policy": policy["id"], "collection": "folders", "action": "read"},
        ],
    )
    assert isinstance(rows[0]["id"], int)
    assert rows[1]["id"] == rows[0]["id"] + 1


async def test_a_permission_must_name_a_known_collection_and_action(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "p"})
    for row in (
        {"collection": "nowhere", "action": "read"},
        {"collection": "roles", "action": "fly"},
    ):
        status, body = await call(client, "POST", "/permissions", {"policy": policy["id"], **row})
        assert status == 400, row
        assert code(body) == "INVALID_PAYLOAD"


async def test_a_relation_must_point_at_an_existing_item(client: Client) -> None:
    status, body = await call(
        client,
        "POST",
        "/users",
        {"email": "r@example.com", "role": "6f9619ff-8b86-d011-b42d-00c04fc964ff"},
    )
    assert status == 400
    assert code(body) == "INVALID_FOREIGN_KEY"


async def test_a_notification_is_stamped_and_starts_in_the_inbox(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    note = await ok(client, "POST", "/notifications", {"recipient": me["id"], "subject": "Hi"})
    assert note["status"] == "inbox"
    assert note["timestamp"].endswith("Z")
    assert isinstance(note["id"], int)


async def test_roles_nest_and_list_their_children(client: Client) -> None:
    parent = await ok(client, "POST", "/roles", {"name": "parent"})
    child = await ok(client, "POST", "/roles", {"name": "child", "parent": parent["id"]})
    read = await ok(
        client, "GET", f"/roles/{parent['id']}", params={"fields": "name,children.name"}
    )
    assert read == {"name": "parent", "children": [{"name": "child"}]}
    assert (await ok(client, "GET", f"/roles/{child['id']}", params={"fields": "parent.name"})) == {
        "parent": {"name": "parent"}
    }


async def test_deleting_a_role_clears_it_from_its_users_and_children(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "temp"})
    child = await ok(client, "POST", "/roles", {"name": "child", "parent": role["id"]})
    user = await ok(client, "POST", "/users", {"email": "member@example.com", "role": role["id"]})
    await ok(client, "DELETE", f"/roles/{role['id']}")
    assert (await ok(client, "GET", f"/users/{user['id']}"))["role"] is None
    assert (await ok(client, "GET", f"/roles/{child['id']}"))["parent"] is None


async def test_deleting_a_policy_deletes_its_permissions(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "p"})
    row = await ok(
        client,
        "POST",
        "/permissions",
        {"policy": policy["id"], "collection": "roles", "action": "read"},
    )
    await ok(client, "DELETE", f"/policies/{policy['id']}")
    status, _ = await call(client, "GET", f"/permissions/{row['id']}")
    assert status == 403


async def test_the_last_admin_cannot_be_deleted_or_suspended(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    status, body = await call(client, "DELETE", f"/users/{me['id']}")
    assert status == 422
    assert code(body) == "UNPROCESSABLE_CONTENT"
    status, body = await call(client, "PATCH", f"/users/{me['id']}", {"status": "suspended"})
    assert status == 422


async def test_the_bootstrap_admin_holds_the_administrator_role(client: Client) -> None:
    me = await ok(client, "GET", "/users/me", params={"fields": "email,role.name,password"})
    assert me == {
        "email": BOOTSTRAP_ADMIN,
        "role": {"name": "Administrator"},
        "password": "**********",
    }


async def test_an_array_patch_updates_each_item_with_its_own_changes(client: Client) -> None:
    a, b = await ok(client, "POST", "/folders", [{"name": "a"}, {"name": "b"}])
    updated = await ok(
        client, "PATCH", "/folders", [{"id": a["id"], "name": "a2"}, {"id": b["id"], "name": "b2"}]
    )
    assert [f["name"] for f in updated] == ["a2", "b2"]


async def test_an_array_patch_item_without_its_key_is_invalid_payload(client: Client) -> None:
    status, body = await call(client, "PATCH", "/folders", [{"name": "x"}])
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_a_query_patch_updates_the_matching_items(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": "old-1"}, {"name": "old-2"}, {"name": "keep"}])
    body = {"query": {"filter": {"name": {"_starts_with": "old"}}}, "data": {"name": "new"}}
    updated = await ok(client, "PATCH", "/folders", body)
    assert [f["name"] for f in updated] == ["new", "new"]
    names = sorted(f["name"] for f in await ok(client, "GET", "/folders"))
    assert names == ["keep", "new", "new"]


async def test_a_query_delete_removes_the_matching_items(client: Client) -> None:
    await ok(client, "POST", "/folders", [{"name": "gone-1"}, {"name": "gone-2"}, {"name": "kept"}])
    status, _ = await call(
        client, "DELETE", "/folders", {"query": {"filter": {"name": {"_starts_with": "gone"}}}}
    )
    assert status == 204
    assert [f["name"] for f in await ok(client, "GET", "/folders")] == ["kept"]


async def test_keys_and_query_together_are_invalid_payload(client: Client) -> None:
    status, body = await call(client, "DELETE", "/folders", {"keys": ["x"], "query": {}})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_a_policy_lists_its_users_and_roles_apart(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "shared"})
    role = await ok(client, "POST", "/roles", {"name": "r", "policies": [{"policy": policy["id"]}]})
    user = await ok(
        client, "POST", "/users", {"email": "u@example.com", "policies": [{"policy": policy["id"]}]}
    )
    read = await ok(
        client, "GET", f"/policies/{policy['id']}", params={"fields": "users.user,roles.role"}
    )
    assert read == {"users": [{"user": user["id"]}], "roles": [{"role": role["id"]}]}


async def test_the_collections_answer_the_same_after_a_replay(
    client: Client, tracepoint: Any
) -> None:
    role = await ok(client, "POST", "/roles", {"name": "ops"})
    policy = await ok(client, "POST", "/policies", {"name": "p", "ip_access": "10.0.0.0/8"})
    await ok(
        client,
        "POST",
        "/permissions",
        {"policy": policy["id"], "collection": "folders", "action": "read"},
    )
    user = await ok(
        client,
        "POST",
        "/users",
        {"email": "r@example.com", "role": role["id"], "policies": [{"policy": policy["id"]}]},
    )
    await ok(client, "PATCH", f"/users/{user['id']}", {"first_name": "Replayed"})
    await ok(client, "DELETE", f"/roles/{role['id']}")
    collections = ("users", "roles", "policies", "permissions", "folders", "notifications")

    async def everything() -> list[Any]:
        return [await ok(client, "GET", f"/{c}", params={"fields": "*.*"}) for c in collections]

    before = await everything()
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert await everything() == before
