"""Each request is logged once, with its id, route, status, duration and caller; the id is
echoed to the caller and names the application's records made while it is handled."""

import io
import logging
from typing import Any

import orjson
from aiohttp import web

from api.logs.formats import configure_logging
from application.service.runtime import Tracepoint
from tests.conftest import ADMIN_TOKEN, AUTH
from tests.logs.conftest import lines, logged_client


def records(output: io.StringIO, logger: str) -> list[dict[str, Any]]:
    return [r for r in map(orjson.loads, lines(output)) if r["logger"] == logger]


async def test_a_request_is_logged_with_id_method_route_status_duration_and_user(
    tracepoint: Tracepoint, aiohttp_client: Any, output: io.StringIO
) -> None:
    configure_logging("json", stream=output)
    client = await logged_client(tracepoint, aiohttp_client)
    me = await (await client.get("/users/me", headers=AUTH)).json()
    response = await client.get(f"/users/{me['data']['id']}", headers=AUTH)
    [record] = [
        r
        for r in records(output, "aiohttp.access")
        if r["request_id"] == response.headers["X-Request-Id"]
    ]
    assert record["method"] == "GET"
    assert record["route"] == "/users/{key}"
    assert record["status"] == 200
    assert isinstance(record["duration_ms"], float)
    assert record["user_id"] == me["data"]["id"]
    assert record["level"] == "info"
    assert ADMIN_TOKEN not in output.getvalue()


async def test_a_sane_incoming_request_id_is_kept_and_echoed(
    tracepoint: Tracepoint, aiohttp_client: Any, output: io.StringIO
) -> None:
    configure_logging("json", stream=output)
    client = await logged_client(tracepoint, aiohttp_client)
    response = await client.get("/server/ping", headers={"X-Request-Id": "lb-7f3a.42"})
    assert response.headers["X-Request-Id"] == "lb-7f3a.42"
    [record] = records(output, "aiohttp.access")
    assert record["request_id"] == "lb-7f3a.42"


async def test_an_unfit_incoming_request_id_is_replaced(
    tracepoint: Tracepoint, aiohttp_client: Any, output: io.StringIO
) -> None:
    configure_logging("json", stream=output)
    client = await logged_client(tracepoint, aiohttp_client)
    response = await client.get("/server/ping", headers={"X-Request-Id": 'x" forged=1'})
    assert response.headers["X-Request-Id"] != 'x" forged=1'
    assert len(response.headers["X-Request-Id"]) == 32


async def test_a_failing_request_logs_one_json_error_with_its_request_id_and_no_secret(
    tracepoint: Tracepoint, aiohttp_client: Any, output: io.StringIO
) -> None:
    async def failing(request: web.Request) -> web.Response:
        logging.getLogger("tracepoint.test").info("handling %s", request.query_string)
        raise RuntimeError(f"could not use {dict(request.query)}")

    configure_logging("json", stream=output)
    client = await logged_client(tracepoint, aiohttp_client, {"/test-only/fail": failing})
    response = await client.get(
        "/test-only/fail?signatureToken=secret-in-query&password=secret-password",
        headers={"Cookie": "tracking=secret-cookie"},
    )
    assert response.status == 500
    text = output.getvalue()
    for secret in ("secret-in-query", "secret-password", "secret-cookie"):
        assert secret not in text
    request_id = response.headers["X-Request-Id"]
    [error] = [r for r in map(orjson.loads, lines(output)) if r["level"] == "error"]
    assert error["request_id"] == request_id
    assert "RuntimeError" in error["exception"]
    [handled] = records(output, "tracepoint.test")
    assert handled["request_id"] == request_id
    [access] = records(output, "aiohttp.access")
    assert access["status"] == 500
    assert access["path"] == "/test-only/fail?signatureToken=***&password=***"


async def test_the_text_access_line_masks_the_query_and_names_the_request(
    tracepoint: Tracepoint, aiohttp_client: Any, output: io.StringIO
) -> None:
    configure_logging("text", stream=output)
    client = await logged_client(tracepoint, aiohttp_client)
    response = await client.get(f"/users/me?access_token={ADMIN_TOKEN}&fields=id")
    assert response.status == 200
    [line] = [line for line in lines(output) if "aiohttp.access" in line]
    assert '"GET /users/me?access_token=***&fields=id HTTP/1.1" 200' in line
    assert f"id={response.headers['X-Request-Id']}" in line
