"""A partner's read rule reads its CURIEs as a query does: by what the captured documents
bound their prefixes to. A CURIE rule gives exactly the events the IRI rule gives, and a
CURIE whose meaning is unknown is refused when the rule is written, never silently empty."""

from typing import Any

from tests.access.helpers import Client, call, code, ok, user_with
from tests.access.test_permissions import event_ids, ids, numbered
from tests.conftest import ADMIN_TOKEN
from tests.epcis.test_custom_vocabulary import EX, OTHER, store


async def partner_sees(client: Client, rule: dict[str, Any]) -> list[str]:
    """The events a new partner whose read rule is `rule` sees."""
    partner = await user_with(
        client, {"collection": "epcis_event", "action": "read", "permissions": rule}
    )
    return sorted(await event_ids(client, partner.token))


async def refusal(client: Client, rule: dict[str, Any]) -> str:
    """The message of the 400 that writing `rule` gets (it must get one)."""
    policy = await ok(client, "POST", "/policies", {"name": "partner"})
    row = {"policy": policy["id"], "collection": "epcis_event", "action": "read"}
    status, body = await call(client, "POST", "/permissions", {**row, "permissions": rule})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD"), body
    permissions = await ok(
        client, "GET", "/permissions", params={"filter[policy][_eq]": policy["id"]}
    )
    assert permissions == []
    return str(body["errors"][0]["message"])


async def test_a_rule_with_a_curie_value_sees_what_the_iri_rule_sees(client: Client) -> None:
    as_curie = numbered(1, bizStep="ex:repack")
    as_iri = numbered(2, bizStep=EX + "repack")
    other = numbered(3, bizStep="ex:unpack")
    await store(client, as_curie, as_iri, other)
    by_iri = await partner_sees(client, {"bizStep": {"_eq": EX + "repack"}})
    assert by_iri == ids(as_curie, as_iri)
    assert await partner_sees(client, {"bizStep": {"_eq": "ex:repack"}}) == by_iri


async def test_a_rule_with_curie_values_in_a_list_sees_what_the_iris_see(client: Client) -> None:
    here, there = (
        numbered(1, readPoint={"id": "ex:dock-1"}),
        numbered(2, readPoint={"id": "ex:dock-2"}),
    )
    await store(client, here, there, numbered(3, readPoint={"id": "ex:dock-3"}))
    by_iri = await partner_sees(client, {"readPoint": {"_in": [EX + "dock-1", EX + "dock-2"]}})
    assert by_iri == ids(here, there)
    assert await partner_sees(client, {"readPoint": {"_in": ["ex:dock-1", "ex:dock-2"]}}) == by_iri


async def test_a_rule_naming_an_ilmd_field_by_curie_sees_what_the_iri_rule_sees(
    client: Client,
) -> None:
    lot = numbered(1, action="ADD", ilmd={"ex:lot": "L1"})
    other = numbered(2, action="ADD", ilmd={"ex:lot": "L2"})
    await store(client, lot, other)
    by_iri = await partner_sees(client, {"ilmd": {EX + "lot": {"_eq": "L1"}}})
    assert by_iri == ids(lot)
    assert await partner_sees(client, {"ilmd": {"ex:lot": {"_eq": "L1"}}}) == by_iri


async def test_a_rule_bounding_a_top_level_field_by_curie_sees_what_the_iri_rule_sees(
    client: Client,
) -> None:
    cold, warm = numbered(1, **{"ex:temperature": 4}), numbered(2, **{"ex:temperature": 12})
    await store(client, cold, warm)
    by_iri = await partner_sees(client, {EX + "temperature": {"_lte": 8}})
    assert by_iri == ids(cold)
    assert await partner_sees(client, {"ex:temperature": {"_lte": 8}}) == by_iri


async def test_a_rule_whose_curie_prefix_no_document_binds_is_refused(client: Client) -> None:
    await store(client, numbered(1, bizStep="ex:repack"))
    message = await refusal(client, {"bizStep": {"_eq": "zz:repack"}})
    assert "zz:repack" in message
    assert "no captured document binds" in message


async def test_a_rule_whose_curie_field_prefix_no_document_binds_is_refused(
    client: Client,
) -> None:
    message = await refusal(client, {"ilmd": {"zz:lot": {"_eq": "L1"}}})
    assert "zz:lot" in message
    assert "write the full IRI" in message


async def test_a_rule_whose_curie_prefix_documents_bound_two_ways_is_refused(
    client: Client,
) -> None:
    await store(client, numbered(1, bizStep="ex:repack"))
    await store(client, numbered(2, bizStep="ex:repack"), bound=OTHER)
    message = await refusal(client, {"bizStep": {"_eq": "ex:repack"}})
    assert "bound to more than one namespace" in message


async def test_a_rule_may_name_a_prefix_of_the_epcis_context_without_a_binding(
    client: Client,
) -> None:
    shipped = numbered(1, bizStep="cbv:BizStep-shipping")
    await store(client, shipped, bound=None)
    queried = await event_ids(client, ADMIN_TOKEN, EQ_bizStep="cbv:BizStep-shipping")
    assert queried == ids(shipped)
    assert await partner_sees(client, {"bizStep": {"_eq": "cbv:BizStep-shipping"}}) == queried


async def test_a_rule_whose_prefix_becomes_ambiguous_denies_rather_than_widens(
    client: Client,
) -> None:
    await store(client, numbered(1, bizStep="ex:repack"))
    partner = await user_with(
        client,
        {
            "collection": "epcis_event",
            "action": "read",
            "permissions": {"bizStep": {"_eq": "ex:repack"}},
        },
    )
    await store(client, numbered(2, bizStep="ex:repack"), bound=OTHER)
    status, body = await call(client, "GET", "/v2/epcis/events", token=partner.token)
    assert status == 403, body
    assert "bound to more than one namespace" in body["detail"]


async def test_a_rule_patched_onto_a_permission_on_events_is_checked_too(client: Client) -> None:
    partner = await user_with(
        client,
        {"collection": "epcis_event", "action": "read", "permissions": {"bizStep": {"_eq": "x"}}},
    )
    [row] = await ok(client, "GET", "/permissions", params={"filter[policy][_eq]": partner.policy})
    rule = {"bizStep": {"_eq": "zz:repack"}}
    status, body = await call(client, "PATCH", f"/permissions/{row['id']}", {"permissions": rule})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD"), body
    assert "zz:repack" in body["errors"][0]["message"]
    stored = await ok(client, "GET", f"/permissions/{row['id']}")
    assert stored["permissions"] == {"bizStep": {"_eq": "x"}}
