"""Flows in tests: connections, named queries, flows, captures."""

from typing import Any

from tests.access.helpers import Client, ok
from tests.epcis.documents import document
from tests.epcis.test_capture import capture as capture_document


async def capture(client: Client, *events: dict[str, Any], token: str | None = None) -> None:
    """Capture events (as the admin unless a token is given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = await capture_document(client, document(*events), **headers)
    assert response.status in (201, 202), await response.text()


async def flow_to(
    client: Client, url: str, query: dict[str, list[str]], token: str | None = None, **values: Any
) -> dict[str, Any]:
    """A connection to `url`, a named query and a flow using both."""
    kw = {"token": token} if token else {}
    connection = await ok(
        client,
        "POST",
        "/items/epcis_connection",
        {"name": "partner", "url": url, "timeout_seconds": 2},
        **kw,
    )
    name = "q" + connection["id"][:8]
    await ok(client, "POST", "/items/epcis_queries", {"name": name, "query": query}, **kw)
    flow: dict[str, Any] = await ok(
        client,
        "POST",
        "/items/epcis_outbound_flow",
        {"connection": connection["id"], "epcis_query": name, **values},
        **kw,
    )
    return flow


async def run(client: Client, flow: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """Run the flow now; what it did."""
    result: dict[str, Any] = await ok(
        client, "POST", f"/items/epcis_outbound_flow/{flow['id']}/run", **kw
    )
    return result


async def flow_now(client: Client, flow: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await ok(client, "GET", f"/items/epcis_outbound_flow/{flow['id']}")
    return result
