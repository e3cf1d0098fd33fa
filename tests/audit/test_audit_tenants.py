"""`/audit` in a multi-tenant installation: an account proves its own events only."""

from tests.access.helpers import Client, call, code, ok
from tests.audit.helpers import event
from tests.epcis.documents import document
from tests.items.test_tenants import Tenants, settings, tenants  # noqa: F401 (fixtures)


async def _may_audit(client: Client, *policies: str) -> None:
    rows = [{"collection": "audit", "action": "read", "policy": p} for p in policies]
    await ok(client, "POST", "/permissions", rows)


async def _proof(client: Client, token: str, **params: str) -> tuple[int, object]:
    return await call(client, "GET", "/audit/proof/inclusion", params=params, token=token)


async def test_an_account_proves_its_own_events_and_not_another_s(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await _may_audit(client, tenants.a.policy, tenants.b.policy)
    for token, n in ((tenants.a.token, 1), (tenants.b.token, 2)):
        status, body = await call(
            client, "POST", "/v2/epcis/capture", document(event(n)), token=token
        )
        assert status == 201, body
    own, other = event(1)["eventID"], event(2)["eventID"]
    status, proof = await _proof(client, tenants.a.token, eventID=own)
    assert status == 200, proof
    for token, event_id in ((tenants.a.token, other), (tenants.b.token, own)):
        status, body = await _proof(client, token, eventID=event_id)
        assert (status, code(body)) == (403, "FORBIDDEN")
    assert isinstance(proof, dict)
    position = str(proof["data"]["position"])
    status, body = await _proof(client, tenants.a.token, position=position)
    assert (status, code(body)) == (403, "FORBIDDEN")
    assert (await ok(client, "GET", "/audit/proof/inclusion", params={"position": position}))[
        "leaf_hash"
    ] == proof["data"]["leaf_hash"]
