"""`/server/ping` and `/server/health`."""

from typing import Any

from aiohttp.test_utils import TestClient

from application.service.runtime import Tracepoint


async def test_ping_answers_pong(client: TestClient[Any, Any]) -> None:
    response = await client.get("/server/ping")
    assert response.status == 200
    assert await response.text() == "pong"


async def test_health_is_ok_when_the_database_answers(client: TestClient[Any, Any]) -> None:
    response = await client.get("/server/health")
    assert response.status == 200
    assert await response.json() == {"status": "ok"}


async def test_health_is_503_naming_the_database_when_it_is_unreachable(
    client: TestClient[Any, Any], tracepoint: Tracepoint
) -> None:
    tracepoint.database.close()
    response = await client.get("/server/health")
    assert response.status == 503
    body = await response.json()
    assert body["status"] == "error"
    assert "database" in body["checks"]


async def test_unknown_platform_route_gets_the_platform_error_envelope(
    client: TestClient[Any, Any],
) -> None:
    response = await client.get("/nowhere")
    assert response.status == 404
    body = await response.json()
    assert body["errors"][0]["extensions"]["code"] == "ROUTE_NOT_FOUND"
