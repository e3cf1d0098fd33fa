"""The permission matrix: for each collection and action, a user without access, with
partial access (an item rule) and with full access; and what the EPCIS API allows."""

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.access.helpers import Client, MadeUser, call, code, ok, user_with
from tests.conftest import ADMIN_TOKEN, AUTH
from tests.epcis.documents import document, object_event
from tests.epcis.test_capture import capture


@dataclass(frozen=True)
class Seed:
    """How the matrix exercises a collection: the field its item rule tests, the values
    of the admin's two items ("mine" passes the rule, "other" does not), the values an
    update writes, and what every item of it also needs."""

    field: str
    mine: str
    other: str
    changed: tuple[str, str]
    extra: Callable[[dict[str, str]], dict[str, Any]] = lambda context: {}


SEEDS = {
    "roles": Seed("name", "mine", "other", ("mine-2", "other-2")),
    "policies": Seed("name", "mine", "other", ("mine-2", "other-2")),
    "folders": Seed("name", "mine", "other", ("mine-2", "other-2")),
    "translations": Seed(
        "key", "mine", "other", ("mine-2", "other-2"), lambda c: {"language": "en", "value": "v"}
    ),
    "users": Seed(
        "first_name",
        "mine",
        "other",
        ("mine-2", "other-2"),
        lambda c: {"email": f"{secrets.token_hex(4)}@example.com"},
    ),
    "permissions": Seed(
        "collection",
        "folders",
        "roles",
        ("translations", "notifications"),
        lambda c: {"policy": c["policy"], "action": "read"},
    ),
    "notifications": Seed(
        "subject", "mine", "other", ("mine-2", "other-2"), lambda c: {"recipient": c["admin"]}
    ),
}


async def context(client: Client) -> dict[str, str]:
    """What seeds refer to: the admin and a policy of their own."""
    policy = await ok(client, "POST", "/policies", {"name": "seeds"})
    return {"admin": (await ok(client, "GET", "/users/me"))["id"], "policy": policy["id"]}


async def seed(client: Client, collection: str) -> dict[str, Any]:
    """The admin's two items of the collection, as "mine" and "other"."""
    spec, values = SEEDS[collection], await context(client)
    created = await ok(
        client,
        "POST",
        f"/{collection}",
        [{**spec.extra(values), spec.field: v} for v in (spec.mine, spec.other)],
    )
    return {"mine": created[0], "other": created[1]}


async def someone(client: Client, collection: str, action: str, level: str) -> MadeUser:
    """A user with no, partial (only the "mine" item) or full access."""
    if level == "none":
        return await user_with(client)
    spec = SEEDS[collection]
    rule = {spec.field: {"_eq": spec.mine}} if level == "partial" else None
    rows = [{"collection": collection, "action": action, "fields": ["*"], "permissions": rule}]
    if action != "read":
        rows.append({"collection": collection, "action": "read", "fields": ["*"]})
    return await user_with(client, *rows)


@pytest.mark.parametrize("collection", sorted(SEEDS))
@pytest.mark.parametrize("level", ["none", "partial", "full"])
async def test_read(client: Client, collection: str, level: str) -> None:
    items = await seed(client, collection)
    user = await someone(client, collection, "read", level)
    status, body = await call(client, "GET", f"/{collection}", token=user.token)
    mine, other = items["mine"]["id"], items["other"]["id"]
    if level == "none":
        assert (status, code(body)) == (403, "FORBIDDEN")
        return
    ids = {item["id"] for item in body["data"]}
    assert mine in ids
    assert (other in ids) == (level == "full")
    status, _ = await call(client, "GET", f"/{collection}/{other}", token=user.token)
    assert status == (200 if level == "full" else 403)


@pytest.mark.parametrize("collection", sorted(SEEDS))
@pytest.mark.parametrize("level", ["none", "partial", "full"])
async def test_update(client: Client, collection: str, level: str) -> None:
    items = await seed(client, collection)
    spec = SEEDS[collection]
    user = await someone(client, collection, "update", level)
    cases = (
        ("mine", spec.changed[0], level != "none"),
        ("other", spec.changed[1], level == "full"),
    )
    for name, value, allowed in cases:
        key = items[name]["id"]
        status, body = await call(
            client, "PATCH", f"/{collection}/{key}", {spec.field: value}, token=user.token
        )
        assert status == (200 if allowed else 403), (name, body)
        stored = await ok(client, "GET", f"/{collection}/{key}")
        assert stored[spec.field] == (value if allowed else items[name][spec.field])


@pytest.mark.parametrize("collection", sorted(SEEDS))
@pytest.mark.parametrize("level", ["none", "partial", "full"])
async def test_delete(client: Client, collection: str, level: str) -> None:
    items = await seed(client, collection)
    user = await someone(client, collection, "delete", level)
    for name, allowed in (("other", level == "full"), ("mine", level != "none")):
        key = items[name]["id"]
        status, _ = await call(client, "DELETE", f"/{collection}/{key}", token=user.token)
        assert status == (204 if allowed else 403), name
        exists, _ = await call(client, "GET", f"/{collection}/{key}")
        assert (exists == 403) == allowed


@pytest.mark.parametrize("collection", sorted(SEEDS))
@pytest.mark.parametrize("level", ["none", "full"])
async def test_create(client: Client, collection: str, level: str) -> None:
    spec, values = SEEDS[collection], await context(client)
    user = await someone(client, collection, "create", level)
    payload = {**spec.extra(values), spec.field: spec.mine}
    status, body = await call(client, "POST", f"/{collection}", payload, token=user.token)
    if level == "none":
        assert (status, code(body)) == (403, "FORBIDDEN")
        return
    assert status == 200
    assert body["data"][spec.field] == spec.mine


async def test_a_deletion_with_one_forbidden_key_deletes_nothing(client: Client) -> None:
    items = await seed(client, "folders")
    user = await someone(client, "folders", "delete", "partial")
    status, _ = await call(
        client, "DELETE", "/folders", [items["mine"]["id"], items["other"]["id"]], token=user.token
    )
    assert status == 403
    assert len(await ok(client, "GET", "/folders")) == 2


async def test_only_permitted_fields_are_read(client: Client) -> None:
    await seed(client, "folders")
    user = await user_with(client, {"collection": "folders", "action": "read", "fields": ["name"]})
    data = await ok(client, "GET", "/folders", token=user.token)
    assert sorted(data, key=lambda item: str(item["name"])) == [{"name": "mine"}, {"name": "other"}]
    status, body = await call(client, "GET", "/folders", token=user.token, params={"fields": "id"})
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_writing_a_field_outside_the_permission_is_forbidden(client: Client) -> None:
    user = await user_with(
        client,
        {"collection": "roles", "action": "create", "fields": ["name"]},
        {"collection": "roles", "action": "read", "fields": ["*"]},
    )
    status, body = await call(
        client, "POST", "/roles", {"name": "x", "icon": "y"}, token=user.token
    )
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_presets_fill_what_the_payload_leaves_out(client: Client) -> None:
    user = await user_with(
        client,
        {"collection": "roles", "action": "create", "fields": ["*"], "presets": {"icon": "preset"}},
        {"collection": "roles", "action": "read", "fields": ["*"]},
    )
    created = await ok(client, "POST", "/roles", {"name": "x"}, token=user.token)
    assert created["icon"] == "preset"
    overridden = await ok(client, "POST", "/roles", {"name": "y", "icon": "mine"}, token=user.token)
    assert overridden["icon"] == "mine"


async def test_validation_rules_refuse_values_that_break_them(client: Client) -> None:
    user = await user_with(
        client,
        {
            "collection": "roles",
            "action": "create",
            "fields": ["*"],
            "validation": {"name": {"_starts_with": "team-"}},
        },
    )
    status, body = await call(client, "POST", "/roles", {"name": "other"}, token=user.token)
    assert (status, code(body)) == (400, "FAILED_VALIDATION")
    status, _ = await call(client, "POST", "/roles", {"name": "team-a"}, token=user.token)
    assert status == 204  # created, but the user may not read roles back


async def test_an_item_rule_may_name_the_current_user(client: Client) -> None:
    user = await user_with(
        client,
        {
            "collection": "users",
            "action": "read",
            "fields": ["id", "email"],
            "permissions": {"id": {"_eq": "$CURRENT_USER"}},
        },
    )
    data = await ok(client, "GET", "/users", token=user.token)
    assert data == [{"id": user.id, "email": user.email}]
    assert (await ok(client, "GET", "/users/me", token=user.token)) == {
        "id": user.id,
        "email": user.email,
    }


async def test_a_policy_limited_to_other_addresses_does_not_apply(client: Client) -> None:
    user = await user_with(
        client, {"collection": "folders", "action": "read", "fields": ["*"]}, ip_access="10.0.0.0/8"
    )
    status, _ = await call(client, "GET", "/folders", token=user.token)
    assert status == 403
    await ok(client, "PATCH", f"/policies/{user.policy}", {"ip_access": "127.0.0.1,::1"})
    status, _ = await call(client, "GET", "/folders", token=user.token)
    assert status == 200


async def test_role_policies_apply_to_the_roles_users_and_their_children(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "readers"})
    await ok(
        client,
        "POST",
        "/permissions",
        {"policy": policy["id"], "collection": "folders", "action": "read", "fields": ["*"]},
    )
    parent = await ok(
        client, "POST", "/roles", {"name": "parent", "policies": [{"policy": policy["id"]}]}
    )
    child = await ok(client, "POST", "/roles", {"name": "child", "parent": parent["id"]})
    await ok(
        client,
        "POST",
        "/users",
        {"email": "kid@example.com", "token": "kid-token-0123456789", "role": child["id"]},
    )
    status, _ = await call(client, "GET", "/folders", token="kid-token-0123456789")
    assert status == 200


async def test_policies_can_be_detached_with_the_delete_form(client: Client) -> None:
    user = await user_with(client, {"collection": "folders", "action": "read", "fields": ["*"]})
    record = await ok(
        client, "GET", f"/users/{user.id}", params={"fields": "policies.id,policies.policy"}
    )
    junction = record["policies"][0]
    assert junction["policy"] == user.policy
    await ok(client, "PATCH", f"/users/{user.id}", {"policies": {"delete": [junction["id"]]}})
    status, _ = await call(client, "GET", "/folders", token=user.token)
    assert status == 403


async def test_a_user_cannot_grant_themselves_a_policy_without_access_rights(
    client: Client,
) -> None:
    admin_policy = (
        await ok(client, "GET", "/policies", params={"filter": '{"admin_access": {"_eq": true}}'})
    )[0]
    user = await user_with(
        client,
        {
            "collection": "users",
            "action": "update",
            "fields": ["*"],
            "permissions": {"id": {"_eq": "$CURRENT_USER"}},
        },
    )
    status, body = await call(
        client,
        "PATCH",
        "/users/me",
        {"policies": [{"policy": admin_policy["id"]}]},
        token=user.token,
    )
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, _ = await call(client, "GET", "/roles", token=user.token)
    assert status == 403


async def test_permissions_me_reports_access_per_collection_and_action(client: Client) -> None:
    user = await user_with(
        client,
        {
            "collection": "folders",
            "action": "read",
            "fields": ["name"],
            "permissions": {"name": {"_eq": "x"}},
        },
        {"collection": "folders", "action": "create", "fields": ["*"], "presets": {"name": "n"}},
    )
    data = await ok(client, "GET", "/permissions/me", token=user.token)
    assert list(data) == ["folders"]
    folders = data["folders"]
    assert folders["read"] == {"access": "partial", "full_access": False, "fields": ["name"]}
    assert folders["create"] == {
        "access": "full",
        "full_access": True,
        "fields": ["*"],
        "presets": {"name": "n"},
    }
    assert folders["delete"] == {"access": "none", "full_access": False}


async def test_permissions_me_is_forbidden_to_the_public(client: Client) -> None:
    status, body = await call(client, "GET", "/permissions/me", token="")
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_item_permissions_say_what_the_caller_may_do_with_one_item(client: Client) -> None:
    items = await seed(client, "folders")
    user = await someone(client, "folders", "update", "partial")
    mine = await ok(
        client, "GET", f"/permissions/me/folders/{items['mine']['id']}", token=user.token
    )
    other = await ok(
        client, "GET", f"/permissions/me/folders/{items['other']['id']}", token=user.token
    )
    missing = await ok(
        client,
        "GET",
        "/permissions/me/folders/6f9619ff-8b86-d011-b42d-00c04fc964ff",
        token=user.token,
    )
    assert mine == {
        "update": {"access": True},
        "delete": {"access": False},
        "share": {"access": False},
    }
    assert other["update"] == {"access": False}
    assert missing["update"] == {"access": False}


async def test_collection_permissions_say_which_actions_the_caller_holds(client: Client) -> None:
    user = await someone(client, "folders", "update", "partial")
    held = await ok(client, "GET", "/permissions/me/folders", token=user.token)
    assert held == {
        "update": {"access": True},
        "delete": {"access": False},
        "share": {"access": False},
    }


async def test_collection_permissions_of_an_unknown_collection_are_all_denied(
    client: Client,
) -> None:
    user = await someone(client, "folders", "update", "full")
    held = await ok(client, "GET", "/permissions/me/nothing_here", token=user.token)
    assert {action: entry["access"] for action, entry in held.items()} == {
        "update": False,
        "delete": False,
        "share": False,
    }


async def test_collection_permissions_are_forbidden_to_the_public(client: Client) -> None:
    status, body = await call(client, "GET", "/permissions/me/folders", token="")
    assert (status, code(body)) == (403, "FORBIDDEN")


async def epcis(client: Client, method: str, path: str, token: str, body: Any = None) -> int:
    response = await client.request(
        method, path, json=body, headers={"Authorization": f"Bearer {token}"}
    )
    return response.status


async def test_capture_needs_create_on_epcis_event(client: Client) -> None:
    reader = await user_with(client, {"collection": "epcis_event", "action": "read"})
    writer = await user_with(client, {"collection": "epcis_event", "action": "create"})
    event = numbered(1)
    doc = document(event)
    assert await epcis(client, "POST", "/v2/epcis/capture", reader.token, doc) == 403
    assert await event_ids(client, ADMIN_TOKEN) == []
    assert await epcis(client, "POST", "/v2/epcis/capture", writer.token, doc) == 201
    assert await event_ids(client, ADMIN_TOKEN) == ids(event)


async def test_queries_need_read_on_epcis_event(client: Client) -> None:
    await capture(client, document(object_event()))
    reader = await user_with(client, {"collection": "epcis_event", "action": "read"})
    writer = await user_with(client, {"collection": "epcis_event", "action": "create"})
    assert await epcis(client, "GET", "/v2/epcis/events", reader.token) == 200
    assert await epcis(client, "GET", "/v2/epcis/events", writer.token) == 403
    assert await epcis(client, "GET", "/v2/epcis/queries", writer.token) == 403


HERE = "urn:epc:id:sgln:4012345.00001.0"
THERE = "urn:epc:id:sgln:4012345.00002.0"


def numbered(n: int, **fields: Any) -> dict[str, Any]:
    """An ObjectEvent with a known event ID, so that tests can name what a caller sees."""
    return object_event(eventID=f"urn:uuid:00000000-0000-4000-8000-{n:012d}", **fields)


def ids(*events: dict[str, Any]) -> list[str]:
    """The sorted event IDs of these events."""
    return sorted(e["eventID"] for e in events)


async def event_ids(
    client: Client, token: str, path: str = "/v2/epcis/events", **params: str
) -> list[str]:
    """Every event a token sees, following the pages."""
    found: list[str] = []
    url: str | None = path
    query: dict[str, str] | None = params
    while url:
        response = await client.get(url, params=query, headers={"Authorization": f"Bearer {token}"})
        assert response.status == 200, await response.text()
        body = await response.json()
        found += [
            e["eventID"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
        ]
        link = response.headers.get("Link")
        url = link[link.index("<") + 1 : link.index(">")] if link else None
        url = url[url.index("/v2/") :] if url else None
        query = None
    return found


async def test_a_read_rule_limits_every_query_and_page_to_the_partners_events(
    client: Client,
) -> None:
    mine = [numbered(i, bizLocation={"id": HERE}) for i in range(3)]
    theirs = [numbered(10 + i, bizLocation={"id": THERE}) for i in range(3)]
    await capture(client, document(*mine[:2], *theirs, mine[2]))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizLocation": {"_eq": HERE}},
        },
    )
    assert sorted(await event_ids(client, partner.token, perPage="1")) == ids(*mine)
    assert await event_ids(client, partner.token, EQ_bizLocation=THERE) == []
    assert sorted(await event_ids(client, ADMIN_TOKEN)) == ids(*mine, *theirs)


async def test_a_read_rule_limits_named_queries_too(client: Client) -> None:
    here, there = numbered(1, bizLocation={"id": HERE}), numbered(2, bizLocation={"id": THERE})
    elsewhere = numbered(3, bizLocation={"id": HERE}, bizStep="receiving")
    await capture(client, document(here, there, elsewhere))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizLocation": {"_eq": HERE}},
        },
    )
    response = await client.post(
        "/v2/epcis/queries",
        json={"name": "shipped", "query": {"EQ_bizStep": ["shipping"]}},
        headers={"Authorization": f"Bearer {partner.token}"},
    )
    assert response.status == 201
    path = "/v2/epcis/queries/shipped/events"
    assert await event_ids(client, partner.token, path) == ids(here)
    assert sorted(await event_ids(client, ADMIN_TOKEN, path)) == ids(here, there)


async def test_rules_of_several_policies_add_up(client: Client) -> None:
    here = numbered(1, bizLocation={"id": HERE}, bizStep="receiving")
    shipped = numbered(2, bizLocation={"id": THERE}, bizStep="shipping")
    neither = numbered(3, bizLocation={"id": THERE}, bizStep="receiving")
    await capture(client, document(here, shipped, neither))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizLocation": {"_eq": HERE}},
        },
    )
    extra = await ok(client, "POST", "/policies", {"name": "shipping too"})
    await ok(
        client,
        "POST",
        "/permissions",
        {
            "policy": extra["id"],
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "shipping"}},
        },
    )
    assert await event_ids(client, partner.token) == ids(here)
    await ok(
        client, "PATCH", f"/users/{partner.id}", {"policies": {"create": [{"policy": extra["id"]}]}}
    )
    assert sorted(await event_ids(client, partner.token)) == ids(here, shipped)


async def test_a_rule_may_name_an_epc_pattern(client: Client) -> None:
    matching = numbered(1, epcList=["urn:epc:id:sgtin:4012345.011111.900"])
    other = numbered(2, epcList=["urn:epc:id:sgtin:4099999.011111.900"])
    await capture(client, document(matching, other))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"epc": {"_in": ["urn:epc:idpat:sgtin:4012345.*.*"]}},
        },
    )
    assert await event_ids(client, partner.token) == ids(matching)


async def test_a_rule_may_test_an_ilmd_field_by_its_iri(client: Client) -> None:
    lot = numbered(1, action="ADD", ilmd={"https://example.com/ns/lot": "L1"})
    other = numbered(2, action="ADD", ilmd={"https://example.com/ns/lot": "L2"})
    await capture(client, document(lot, other))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"ilmd": {"https://example.com/ns/lot": {"_eq": "L1"}}},
        },
    )
    assert await event_ids(client, partner.token) == ids(lot)


async def test_a_rule_may_bound_an_extension_field(client: Client) -> None:
    cold = numbered(1, **{"https://example.com/ns/temperature": 4})
    warm = numbered(2, **{"https://example.com/ns/temperature": 12})
    await capture(client, document(cold, warm))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"https://example.com/ns/temperature": {"_lte": 8}},
        },
    )
    assert await event_ids(client, partner.token) == ids(cold)


async def test_a_rule_may_name_the_measurement_type_of_sensor_reports(client: Client) -> None:
    def reading(n: int, kind: str) -> dict[str, Any]:
        report = {"type": kind, "value": 1.0, "uom": "CEL" if kind == "Temperature" else "P1"}
        return numbered(n, sensorElementList=[{"sensorReport": [report]}])

    cold, damp = reading(1, "Temperature"), reading(2, "RelativeHumidity")
    await capture(client, document(cold, damp))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"sensorReport": {"type": {"_eq": "Temperature"}}},
        },
    )
    assert await event_ids(client, partner.token) == ids(cold)


async def test_a_rule_on_events_that_queries_cannot_answer_is_refused(client: Client) -> None:
    policy = await ok(client, "POST", "/policies", {"name": "p"})
    status, body = await call(
        client,
        "POST",
        "/permissions",
        {
            "policy": policy["id"],
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_contains": "ship"}},
        },
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    assert "_eq or _in" in body["errors"][0]["message"]


async def test_the_epcis_api_takes_static_tokens_only(client: Client) -> None:
    response = await client.post(
        "/auth/login",
        json={"email": "admin@example.com", "password": "correct horse battery staple"},
    )
    token = (await response.json())["data"]["access_token"]
    assert await epcis(client, "GET", "/v2/epcis/events", token) == 401
    assert (await client.get("/v2/epcis/events", headers=AUTH)).status == 200


@pytest.mark.parametrize("collection", sorted(SEEDS))
async def test_create_under_a_validation_rule(client: Client, collection: str) -> None:
    spec, values = SEEDS[collection], await context(client)
    user = await user_with(
        client,
        {
            "collection": collection,
            "action": "create",
            "fields": ["*"],
            "validation": {spec.field: {"_eq": spec.mine}},
        },
    )
    good = {**spec.extra(values), spec.field: spec.mine}
    bad = {**spec.extra(values), spec.field: spec.other}
    assert (await call(client, "POST", f"/{collection}", good, token=user.token))[0] == 204
    status, body = await call(client, "POST", f"/{collection}", bad, token=user.token)
    assert (status, code(body)) == (400, "FAILED_VALIDATION")


@pytest.mark.parametrize(
    ("level", "seen"), [("none", None), ("partial", ["here"]), ("full", ["here", "there"])]
)
async def test_epcis_read(client: Client, level: str, seen: list[str] | None) -> None:
    captured = {
        "here": numbered(1, bizLocation={"id": HERE}),
        "there": numbered(2, bizLocation={"id": THERE}),
    }
    await capture(client, document(*captured.values()))
    rule = {"bizLocation": {"_eq": HERE}} if level == "partial" else None
    rows = (
        []
        if level == "none"
        else [{"collection": "epcis_event", "action": "read", "permissions": rule}]
    )
    partner = await user_with(client, *rows)
    if seen is None:
        assert await epcis(client, "GET", "/v2/epcis/events", partner.token) == 403
        return
    assert sorted(await event_ids(client, partner.token)) == ids(*(captured[n] for n in seen))


@pytest.mark.parametrize("level", ["none", "full"])
async def test_epcis_create(client: Client, level: str) -> None:
    rows = [] if level == "none" else [{"collection": "epcis_event", "action": "create"}]
    partner = await user_with(client, *rows)
    status = await epcis(
        client, "POST", "/v2/epcis/capture", partner.token, document(object_event())
    )
    assert status == (201 if level == "full" else 403)


async def test_policies_me_globals_reports_the_callers_flags(client: Client) -> None:
    assert await ok(client, "GET", "/policies/me/globals") == {
        "app_access": True,
        "admin_access": True,
        "enforce_tfa": False,
    }
    user = await user_with(client, enforce_tfa=True)
    data = await ok(client, "GET", "/users/me", token=user.token)
    assert data == {"id": user.id}
    flags = await ok(client, "GET", "/policies/me/globals", token=user.token)
    assert flags == {"app_access": False, "admin_access": False, "enforce_tfa": True}


async def test_roles_me_lists_the_callers_role_chain(client: Client) -> None:
    parent = await ok(client, "POST", "/roles", {"name": "parent"})
    child = await ok(client, "POST", "/roles", {"name": "child", "parent": parent["id"]})
    user = await user_with(client)
    await ok(client, "PATCH", f"/users/{user.id}", {"role": child["id"]})
    assert await ok(client, "GET", "/roles/me", token=user.token) == [
        {"id": child["id"]},
        {"id": parent["id"]},
    ]
    names = await ok(client, "GET", "/roles/me", params={"fields": "name"})
    assert names == [{"name": "Administrator"}]


async def test_the_public_policy_can_open_epcis_queries_to_everyone(client: Client) -> None:
    event = numbered(1, bizLocation={"id": HERE})
    await capture(client, document(event))
    assert (await client.get("/v2/epcis/events")).status == 401
    public = await ok(client, "GET", "/policies", params={"filter": '{"name": {"_eq": "Public"}}'})
    await ok(
        client,
        "POST",
        "/permissions",
        {"policy": public[0]["id"], "collection": "epcis_event", "action": "read"},
    )
    response = await client.get("/v2/epcis/events")
    assert response.status == 200
    listed = (await response.json())["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    assert [e["eventID"] for e in listed] == ids(event)
    assert (await client.post("/v2/epcis/capture", json=document(object_event()))).status == 401


async def _capture_as(client: Client, token: str, *events: dict[str, Any]) -> str:
    response = await capture(client, document(*events), Authorization=f"Bearer {token}")
    assert response.status == 201, await response.text()
    return str((await response.json())["captureID"])


async def _job_ids(client: Client, token: str) -> list[str]:
    response = await client.get("/v2/epcis/capture", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200, await response.text()
    return sorted(job["captureID"] for job in await response.json())


def _site_partner(site: str) -> list[dict[str, Any]]:
    return [
        {"collection": "epcis_event", "action": "create"},
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizLocation": {"_eq": site}},
        },
    ]


async def test_a_partner_limited_by_a_read_rule_reads_only_its_own_capture_jobs(
    client: Client,
) -> None:
    here, there = (
        await user_with(client, *_site_partner(HERE)),
        await user_with(client, *_site_partner(THERE)),
    )
    mine = await _capture_as(client, here.token, numbered(1, bizLocation={"id": HERE}))
    theirs = await _capture_as(client, there.token, numbered(2, bizLocation={"id": THERE}))
    admins = await _capture_as(client, ADMIN_TOKEN, numbered(3, bizLocation={"id": THERE}))
    assert await _job_ids(client, here.token) == [mine]
    assert (
        await epcis(client, "GET", f"/v2/epcis/capture/{mine}", here.token),
        await epcis(client, "GET", f"/v2/epcis/capture/{theirs}", here.token),
        await epcis(client, "GET", f"/v2/epcis/capture/{admins}", here.token),
    ) == (200, 404, 404)
    assert await _job_ids(client, ADMIN_TOKEN) == sorted([mine, theirs, admins])


async def test_a_reader_without_a_rule_reads_every_capture_job(client: Client) -> None:
    writer = await user_with(client, {"collection": "epcis_event", "action": "create"})
    reader = await user_with(client, {"collection": "epcis_event", "action": "read"})
    written = await _capture_as(client, writer.token, numbered(1))
    by_admin = await _capture_as(client, ADMIN_TOKEN, numbered(2))
    assert await _job_ids(client, reader.token) == sorted([written, by_admin])
    assert await epcis(client, "GET", f"/v2/epcis/capture/{written}", reader.token) == 200
