"""`GET /trace` in a multi-tenant installation: each tenant's lineage is its own events'."""

from tests.access.helpers import Client, call
from tests.epcis.documents import aggregation_event, document
from tests.epcis.test_trace import CASE, ITEM_1, PALLET, edges, trace
from tests.items.test_tenants import Tenants, settings, tenants  # noqa: F401 (fixtures)

PACKED = aggregation_event(PALLET, [CASE], eventID="urn:uuid:00000000-0000-4000-8000-0000000000b7")


async def capture_as(client: Client, token: str, *events: dict[str, object]) -> None:
    status, body = await call(client, "POST", "/v2/epcis/capture", document(*events), token=token)
    assert status == 201, body


async def test_a_tenant_traces_only_what_its_own_users_captured(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await capture_as(client, tenants.a.token, aggregation_event(CASE, [ITEM_1]))
    assert edges(await trace(client, tenants.a.token, epc=ITEM_1)) == {
        (ITEM_1, "contained_in", CASE)
    }
    assert (await trace(client, tenants.b.token, epc=ITEM_1))["edges"] == []


async def test_a_tenants_error_declaration_retracts_only_its_own_event(
    client: Client,
    tenants: Tenants,  # noqa: F811
) -> None:
    await capture_as(client, tenants.a.token, PACKED)
    await capture_as(client, tenants.b.token, PACKED)
    declared = {**PACKED, "errorDeclaration": {"declarationTime": "2024-03-02T00:00:00Z"}}
    await capture_as(client, tenants.b.token, declared)
    assert (await trace(client, tenants.b.token, epc=CASE))["edges"] == []
    assert edges(await trace(client, tenants.a.token, epc=CASE)) == {(CASE, "contained_in", PALLET)}
