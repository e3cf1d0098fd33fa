"""What keeps access control safe: nested writes under the related collection's rules,
an administrator always left, limits that hold under concurrent requests, and keys that
cannot be forged or reused."""

import asyncio
from typing import Any

from api.service.app import create_app
from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import make_settings
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture


async def admin_policy(client: Client) -> dict[str, Any]:
    policies = await ok(
        client, "GET", "/policies", params={"filter": '{"admin_access": {"_eq": true}}'}
    )
    return dict(policies[0])


async def second_admin(client: Client, admin: dict[str, Any]) -> dict[str, Any]:
    """Another administrator, through a policy of their own; with their junction row."""
    user = await ok(
        client,
        "POST",
        "/users",
        {"email": "second@example.com", "policies": [{"policy": admin["id"]}]},
    )
    read = await ok(client, "GET", f"/users/{user['id']}", params={"fields": "policies.id"})
    return {**user, "junction": read["policies"][0]["id"]}


async def test_a_nested_update_obeys_the_related_collections_item_rule(client: Client) -> None:
    admin = await admin_policy(client)
    second = await second_admin(client, admin)
    junction = second["junction"]
    manager = await user_with(
        client,
        {"collection": "users", "action": "update", "fields": ["*"]},
        {"collection": "users", "action": "read", "fields": ["*"]},
        {
            "collection": "access",
            "action": "update",
            "fields": ["*"],
            "permissions": {"policy": {"_neq": admin["id"]}},
        },
        {"collection": "access", "action": "read", "fields": ["*"]},
    )
    status, body = await call(
        client,
        "PATCH",
        f"/users/{second['id']}",
        {"policies": {"update": [{"id": junction, "sort": 2}]}},
        token=manager.token,
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_a_nested_update_cannot_move_a_junction_row_to_another_item(client: Client) -> None:
    admin = await admin_policy(client)
    second = await second_admin(client, admin)
    other = await ok(client, "POST", "/users", {"email": "other@example.com"})
    junction = second["junction"]
    status, body = await call(
        client,
        "PATCH",
        f"/users/{second['id']}",
        {"policies": {"update": [{"id": junction, "user": other["id"]}]}},
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_a_nested_delete_obeys_the_related_collections_item_rule(client: Client) -> None:
    admin = await admin_policy(client)
    second = await second_admin(client, admin)
    manager = await user_with(
        client,
        {"collection": "users", "action": "update", "fields": ["*"]},
        {
            "collection": "access",
            "action": "delete",
            "permissions": {"policy": {"_neq": admin["id"]}},
        },
    )
    status, _ = await call(
        client, "PATCH", f"/users/{second['id']}", {"policies": []}, token=manager.token
    )
    assert status == 403
    kept = await ok(client, "GET", f"/users/{second['id']}", params={"fields": "policies.policy"})
    assert kept["policies"] == [{"policy": admin["id"]}]


async def test_taking_admin_access_from_the_only_admin_policy_is_refused(client: Client) -> None:
    admin = await admin_policy(client)
    status, body = await call(client, "PATCH", f"/policies/{admin['id']}", {"admin_access": False})
    assert (status, code(body)) == (422, "UNPROCESSABLE_CONTENT")


async def test_deleting_the_administrator_role_is_refused(client: Client) -> None:
    me = await ok(client, "GET", "/users/me", params={"fields": "role"})
    status, body = await call(client, "DELETE", f"/roles/{me['role']}")
    assert (status, code(body)) == (422, "UNPROCESSABLE_CONTENT")


async def test_admin_access_can_move_once_another_admin_exists(client: Client) -> None:
    admin = await admin_policy(client)
    await ok(
        client,
        "POST",
        "/users",
        {"email": "heir@example.com", "policies": [{"policy": admin["id"]}]},
    )
    me = await ok(client, "GET", "/users/me")
    status, _ = await call(client, "PATCH", f"/users/{me['id']}", {"status": "archived"})
    assert status == 200
    assert (await call(client, "GET", "/users/me"))[0] == 401


async def test_a_role_cannot_become_its_own_ancestor(client: Client) -> None:
    parent = await ok(client, "POST", "/roles", {"name": "parent"})
    child = await ok(client, "POST", "/roles", {"name": "child", "parent": parent["id"]})
    for role, new_parent in ((parent, parent), (parent, child)):
        status, body = await call(
            client, "PATCH", f"/roles/{role['id']}", {"parent": new_parent["id"]}
        )
        assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_a_validation_rule_checks_only_the_fields_a_payload_holds(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "ok-1"})
    user = await user_with(
        client,
        {
            "collection": "folders",
            "action": "update",
            "fields": ["*"],
            "validation": {"name": {"_starts_with": "ok"}},
        },
    )
    assert (
        await call(client, "PATCH", f"/folders/{folder['id']}", {"parent": None}, token=user.token)
    )[0] == 204
    status, body = await call(
        client, "PATCH", f"/folders/{folder['id']}", {"name": "bad"}, token=user.token
    )
    assert (status, code(body)) == (400, "FAILED_VALIDATION")


async def test_logins_sent_at_once_cannot_pass_the_address_limit(client: Client) -> None:
    async def attempt(n: int) -> int:
        # Each to another account, so that no account's lock comes first.
        response = await client.post(
            "/auth/login", json={"email": f"x{n}@example.com", "password": "x"}
        )
        return response.status

    statuses = await asyncio.gather(*(attempt(n) for n in range(16)))
    assert statuses.count(401) == 10
    assert statuses.count(429) == 6


async def test_an_anonymous_invitation_is_forbidden_whoever_it_names(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "r"})
    for email in ("admin@example.com", "nobody@example.com"):
        status, body = await call(
            client, "POST", "/users/invite", {"email": email, "role": role["id"]}, token=""
        )
        assert (status, code(body)) == (403, "FORBIDDEN")


async def test_only_its_author_or_an_admin_deletes_a_named_query(client: Client) -> None:
    await capture(client, document(object_event()))
    author = await user_with(client, {"collection": "epcis_event", "action": "read"})
    other = await user_with(client, {"collection": "epcis_event", "action": "read"})
    response = await client.post(
        "/v2/epcis/queries",
        json={"name": "mine", "query": {"EQ_bizStep": ["shipping"]}},
        headers={"Authorization": f"Bearer {author.token}"},
    )
    assert response.status == 201
    forbidden = await client.delete(
        "/v2/epcis/queries/mine", headers={"Authorization": f"Bearer {other.token}"}
    )
    assert forbidden.status == 403
    deleted = await client.delete(
        "/v2/epcis/queries/mine", headers={"Authorization": f"Bearer {author.token}"}
    )
    assert deleted.status == 204


async def test_an_integer_key_beyond_64_bits_is_forbidden_not_an_error(client: Client) -> None:
    for method in ("GET", "DELETE"):
        status, body = await call(client, method, "/permissions/99999999999999999999999")
        assert (status, code(body)) == (403, "FORBIDDEN")


async def test_integer_keys_are_unique_under_concurrent_creates(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "p"})

    async def create(index: int) -> tuple[int, Any]:
        return await call(
            client,
            "POST",
            "/permissions",
            {
                "policy": policy["id"],
                "collection": "folders",
                "action": "read",
                "fields": [f"f{index}"],
            },
        )

    results = await asyncio.gather(*(create(i) for i in range(8)))
    assert [status for status, _ in results] == [200] * 8
    assert len({body["data"]["id"] for _, body in results}) == 8


async def test_the_key_of_a_deleted_item_is_not_given_again(client: Client) -> None:
    me = await ok(client, "GET", "/users/me")
    first = await ok(client, "POST", "/notifications", {"recipient": me["id"], "subject": "a"})
    await ok(client, "DELETE", f"/notifications/{first['id']}")
    second = await ok(client, "POST", "/notifications", {"recipient": me["id"], "subject": "b"})
    assert second["id"] > first["id"]


async def test_related_items_are_read_under_their_own_item_rule(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "crew"})
    user = await user_with(
        client,
        {
            "collection": "users",
            "action": "read",
            "fields": ["*"],
            "permissions": {"id": {"_eq": "$CURRENT_USER"}},
        },
        {"collection": "roles", "action": "read", "fields": ["*"]},
    )
    await ok(client, "PATCH", f"/users/{user.id}", {"role": role["id"]})
    await ok(client, "POST", "/users", {"email": "victim@example.com", "role": role["id"]})
    read = await ok(
        client, "GET", f"/roles/{role['id']}", token=user.token, params={"fields": "users.email"}
    )
    assert read == {"users": [{"email": user.email}]}
    status, body = await call(
        client,
        "GET",
        "/roles",
        token=user.token,
        params={"filter": '{"users": {"email": {"_starts_with": "vic"}}}', "meta": "filter_count"},
    )
    assert status == 200
    assert body["meta"]["filter_count"] == 0


async def test_a_relation_into_an_unreadable_collection_is_forbidden(client: Client) -> None:
    user = await user_with(
        client,
        {
            "collection": "users",
            "action": "read",
            "fields": ["*"],
            "permissions": {"id": {"_eq": "$CURRENT_USER"}},
        },
    )
    status, body = await call(
        client, "GET", f"/users/{user.id}", token=user.token, params={"fields": "policies.*"}
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_processes_sharing_a_database_count_failed_logins_together(
    database_url: str, aiohttp_client: Any
) -> None:
    settings = make_settings(database_url, login_failures_per_minute=4)
    first, second = Tracepoint(settings), Tracepoint(settings)
    await first.start()
    await second.start()
    try:
        clients = [
            await aiohttp_client(create_app(service, manage_lifecycle=False))
            for service in (first, second)
        ]
        statuses = []
        for index in range(6):
            response = await clients[index % 2].post(
                "/auth/login", json={"email": "x@example.com", "password": "x"}
            )
            statuses.append(response.status)
        assert statuses == [401, 401, 401, 401, 429, 429]
    finally:
        await first.stop()
        await second.stop()
