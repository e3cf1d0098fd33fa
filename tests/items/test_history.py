"""The history of the platform records: `/activity`, `/revisions`, and a record as it was
at a moment of the past."""

import dataclasses
from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from application.items.history import record_as_of
from application.service.runtime import Tracepoint
from domain.records.record import Record
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import EventStore
from infrastructure.log_compression import decompressed
from tests.access.helpers import Client, call, code, ok, user_with

MASK = "**********"


async def admin_id(client: Client) -> str:
    return str((await ok(client, "GET", "/users/me", params={"fields": "id"}))["id"])


async def history_of(client: Client, collection: str, item: str) -> tuple[Any, Any]:
    """The activity and revisions of one item, oldest first."""
    params = {
        "filter": orjson.dumps(
            {"collection": {"_eq": collection}, "item": {"_eq": str(item)}}
        ).decode(),
        "sort": "id",
        "limit": "-1",
    }
    activity = await ok(client, "GET", "/activity", params=params)
    revisions = await ok(client, "GET", "/revisions", params=params)
    return activity, revisions


async def caught_up(tracepoint: Tracepoint) -> None:
    """Project what was written to the store directly."""
    await tracepoint.blocking.run(tracepoint.projections.catch_up)


# -- /activity and /revisions ----------------------------------------------------------


async def test_creating_a_role_is_a_create_activity(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Auditors"})
    activity, _ = await history_of(client, "roles", role["id"])
    assert len(activity) == 1
    row = activity[0]
    assert row["action"] == "create"
    assert row["user"] == await admin_id(client)
    assert (row["collection"], row["item"]) == ("roles", role["id"])
    assert datetime.fromisoformat(row["timestamp"]) <= datetime.now(UTC)


async def test_creating_a_role_is_a_revision_with_its_values(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Auditors", "icon": "badge"})
    activity, revisions = await history_of(client, "roles", role["id"])
    assert len(revisions) == 1
    revision = revisions[0]
    assert revision["activity"] == activity[0]["id"]
    assert revision["data"] == {**revision["data"], "id": role["id"], "name": "Auditors"}
    assert revision["data"]["icon"] == "badge"
    assert revision["delta"] == revision["data"]


async def test_an_update_revision_has_the_whole_item_and_only_the_change(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "Partners"})
    await ok(client, "PATCH", f"/policies/{policy['id']}", {"icon": "handshake"})
    activity, revisions = await history_of(client, "policies", policy["id"])
    assert [a["action"] for a in activity] == ["create", "update"]
    assert revisions[-1]["delta"] == {"icon": "handshake"}
    assert revisions[-1]["data"] == {**revisions[0]["data"], "icon": "handshake"}


async def test_a_delete_is_an_activity_without_a_revision(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "Short-lived"})
    await ok(client, "DELETE", f"/policies/{policy['id']}")
    activity, revisions = await history_of(client, "policies", policy["id"])
    assert [a["action"] for a in activity] == ["create", "delete"]
    assert activity[-1]["user"] == await admin_id(client)
    assert len(revisions) == 1


async def test_a_deleted_record_keeps_its_history(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Temporary"})
    await ok(client, "PATCH", f"/roles/{role['id']}", {"name": "Renamed"})
    _, before = await history_of(client, "roles", role["id"])
    await ok(client, "DELETE", f"/roles/{role['id']}")
    activity, revisions = await history_of(client, "roles", role["id"])
    assert revisions == before
    assert len(activity) == 3
    revision = await ok(client, "GET", f"/revisions/{revisions[-1]['id']}")
    assert revision["data"]["name"] == "Renamed"


async def test_deleting_a_user_keeps_the_activity_that_names_them(client: Client) -> None:
    user = await user_with(client)
    await ok(client, "POST", "/auth/login", {"email": user.email, "password": user.password})
    await ok(client, "DELETE", f"/users/{user.id}")
    params = {"filter[user][_eq]": user.id}
    assert [a["action"] for a in await ok(client, "GET", "/activity", params=params)] == ["login"]


async def test_password_hashes_never_appear_in_the_history(client: Client) -> None:
    user = await user_with(client)
    await ok(client, "PATCH", f"/users/{user.id}", {"password": "another password"})
    status, body = await call(client, "GET", "/revisions", params={"limit": "-1"})
    assert status == 200
    assert b"argon2" not in orjson.dumps(body)
    _, revisions = await history_of(client, "users", user.id)
    assert revisions[0]["data"]["password"] == MASK
    assert revisions[0]["data"]["token"] == MASK
    assert revisions[-1]["delta"] == {"password": MASK}


async def test_a_login_is_a_login_activity_without_a_revision(client: Client) -> None:
    user = await user_with(client)
    _, before = await history_of(client, "users", user.id)
    await ok(client, "POST", "/auth/login", {"email": user.email, "password": user.password})
    activity, revisions = await history_of(client, "users", user.id)
    assert activity[-1]["action"] == "login"
    assert activity[-1]["user"] == user.id
    assert revisions == before


async def test_the_activity_takes_filter_sort_limit_and_meta(client: Client) -> None:
    folders = await ok(client, "POST", "/folders", [{"name": n} for n in ("a", "b", "c")])
    status, body = await call(
        client,
        "GET",
        "/activity",
        params={
            "filter[collection][_eq]": "folders",
            "sort": "-id",
            "limit": "2",
            "meta": "*",
            "fields": "item,action",
        },
    )
    assert status == 200
    assert body["data"] == [
        {"item": folders[2]["id"], "action": "create"},
        {"item": folders[1]["id"], "action": "create"},
    ]
    assert body["meta"]["filter_count"] == 3
    assert body["meta"]["total_count"] > 3


async def test_the_activity_can_be_searched_with_a_query(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "searched"})
    found = await ok(
        client, "SEARCH", "/activity", {"query": {"filter": {"item": {"_eq": folder["id"]}}}}
    )
    assert [(a["collection"], a["action"]) for a in found] == [("folders", "create")]


async def test_a_revision_reads_its_activity_through_the_relation(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Related"})
    _, revisions = await history_of(client, "roles", role["id"])
    revision = await ok(
        client,
        "GET",
        f"/revisions/{revisions[0]['id']}",
        params={"fields": "id,activity.action,activity.item"},
    )
    assert revision == {
        "id": revisions[0]["id"],
        "activity": {"action": "create", "item": role["id"]},
    }


async def test_the_history_is_forbidden_without_a_read_permission(client: Client) -> None:
    user = await user_with(client, {"collection": "roles", "action": "read", "fields": ["*"]})
    for path in ("/activity", "/revisions"):
        status, body = await call(client, "GET", path, token=user.token)
        assert (status, code(body)) == (403, "FORBIDDEN")


async def test_a_read_permission_opens_the_activity(client: Client) -> None:
    user = await user_with(client, {"collection": "activity", "action": "read", "fields": ["*"]})
    status, body = await call(client, "GET", "/activity", token=user.token)
    assert status == 200
    assert body["data"]
    status, _ = await call(client, "GET", "/revisions", token=user.token)
    assert status == 403


async def test_the_history_cannot_be_written(client: Client) -> None:
    role = await ok(client, "POST", "/roles", {"name": "Fixed"})
    activity, _ = await history_of(client, "roles", role["id"])
    key = activity[0]["id"]
    for method, path in (
        ("POST", "/activity"),
        ("PATCH", f"/activity/{key}"),
        ("DELETE", f"/activity/{key}"),
        ("POST", "/revisions"),
        ("PATCH", "/revisions"),
        ("DELETE", f"/revisions/{key}"),
    ):
        status, body = await call(client, method, path, {"action": "delete"})
        assert (status, code(body)) == (405, "METHOD_NOT_ALLOWED"), (method, path)


async def test_the_address_and_user_agent_of_a_change_are_shown(
    client: Client, tracepoint: Tracepoint
) -> None:
    record = Record(
        "folders",
        "f-with-ip",
        {"id": "f-with-ip", "name": "x"},
        None,
        "2026-01-01T00:00:00.000Z",
        ip="203.0.113.9",
        user_agent="curl/8",
    )
    await tracepoint.blocking.run(tracepoint.store.save, record)
    await caught_up(tracepoint)
    activity, _ = await history_of(client, "folders", "f-with-ip")
    assert (activity[0]["ip"], activity[0]["user_agent"]) == ("203.0.113.9", "curl/8")


async def test_a_record_of_an_unknown_collection_is_still_logged(
    client: Client, tracepoint: Tracepoint
) -> None:
    record = Record("gadgets", "g1", {"id": "g1", "secret": "s"}, None, "2026-01-01T00:00:00.000Z")
    await tracepoint.blocking.run(tracepoint.store.save, record)
    await caught_up(tracepoint)
    activity, revisions = await history_of(client, "gadgets", "g1")
    assert [a["action"] for a in activity] == ["create"]
    assert revisions[0]["data"] == {"id": "g1", "secret": "s"}


async def test_a_replay_rebuilds_the_same_history(client: Client, tracepoint: Tracepoint) -> None:
    user = await user_with(client, {"collection": "folders", "action": "read", "fields": ["*"]})
    await ok(client, "POST", "/auth/login", {"email": user.email, "password": user.password})
    folder = await ok(client, "POST", "/folders", {"name": "kept"})
    await ok(client, "PATCH", f"/folders/{folder['id']}", {"name": "changed"})
    await ok(client, "DELETE", f"/folders/{folder['id']}")
    await ok(client, "DELETE", f"/users/{user.id}")

    async def everything() -> list[Any]:
        params = {"limit": "-1", "sort": "id"}
        return [await ok(client, "GET", f"/{c}", params=params) for c in ("activity", "revisions")]

    before = await everything()
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert await everything() == before


# -- a record as it was ----------------------------------------------------------------

T0, T1, T2, T3, T4 = (f"2026-03-0{day}T12:00:00.000Z" for day in range(1, 6))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


@pytest.fixture
def store(database_url: str) -> Any:
    """An event store holding one folder's life: created at T0, renamed at T1 and T2,
    deleted at T3 and created again at T4."""
    events = EventStore(DatabaseUrl.parse(database_url))
    record = Record("folders", "f1", {"id": "f1", "name": "first"}, "u1", T0)
    record.update({"name": "second"}, "u1", T1)
    record.update({"name": "third", "parent": "p1"}, "u2", T2)
    record.delete("u2", T3)
    record.recreate({"id": "f1", "name": "reborn"}, "u3", T4)
    events.save(record)
    yield events
    events.close()


def test_a_record_did_not_exist_before_it_was_created(store: EventStore) -> None:
    assert record_as_of(store, "folders", "f1", datetime(2026, 2, 1, tzinfo=UTC)) is None


def test_a_record_that_never_existed_is_none(store: EventStore) -> None:
    assert record_as_of(store, "folders", "nobody", at(T4)) is None


def test_a_record_has_its_created_values_from_its_creation(store: EventStore) -> None:
    assert record_as_of(store, "folders", "f1", at(T0)) == {"id": "f1", "name": "first"}


def test_a_record_between_updates_has_the_values_of_then(store: EventStore) -> None:
    between = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
    assert record_as_of(store, "folders", "f1", between) == {"id": "f1", "name": "second"}
    assert record_as_of(store, "folders", "f1", at(T2)) == {
        "id": "f1",
        "name": "third",
        "parent": "p1",
    }


def test_a_naive_moment_is_taken_as_utc(store: EventStore) -> None:
    naive = datetime(2026, 3, 2, 12, 0, 0)
    assert record_as_of(store, "folders", "f1", naive) == {"id": "f1", "name": "second"}


def test_a_deleted_record_is_none_after_its_deletion(store: EventStore) -> None:
    assert record_as_of(store, "folders", "f1", datetime(2026, 3, 4, 13, tzinfo=UTC)) is None


def test_a_recreated_record_has_its_new_values(store: EventStore) -> None:
    later = datetime(2027, 1, 1, tzinfo=UTC)
    assert record_as_of(store, "folders", "f1", later) == {"id": "f1", "name": "reborn"}


def test_events_stored_before_addresses_were_kept_still_load(store: EventStore) -> None:
    mapper = store._app.mapper  # the path the store loads every event through
    record = Record("folders", "old", {"id": "old"}, None, T0)
    record.update({"name": "x"}, None, T1)
    for event in record.collect_events():
        stored = mapper.to_stored_event(event)
        state = orjson.loads(decompressed(stored.state))
        del state["ip"], state["user_agent"]
        loaded: Any = mapper.to_domain_event(dataclasses.replace(stored, state=orjson.dumps(state)))
        assert (loaded.ip, loaded.user_agent) == (None, None)


async def test_the_activity_is_found_by_search_through_its_index(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "indexed"})
    found = await ok(
        client, "GET", "/activity", params={"search": "folders", "fields": "item,action"}
    )
    assert {"item": folder["id"], "action": "create"} in found
    assert await ok(client, "GET", "/activity", params={"search": "no-such-thing"}) == []
