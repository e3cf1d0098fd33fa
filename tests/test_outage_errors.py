"""Which failures are a database outage, and what a request that meets one is answered."""

import sqlite3
from typing import Any

import psycopg
import pytest
from aiohttp import web
from eventsourcing.persistence import OperationalError as StoreOperationalError
from psycopg_pool import PoolTimeout

from api.platform.middleware import errors
from application.service.errors import DatabaseUnavailable, as_unavailable


def raised_from(cause: BaseException, wrapper: BaseException) -> BaseException:
    """`wrapper` as eventsourcing raises it: `raise wrapper from cause`."""
    try:
        raise wrapper from cause
    except BaseException as exc:
        return exc


def test_a_refused_or_broken_postgresql_connection_is_an_outage() -> None:
    lost = psycopg.OperationalError("connection refused")
    assert as_unavailable(lost) is not None
    assert as_unavailable(lost).fresh_connection_may_help  # type: ignore[union-attr]


def test_a_pool_that_cannot_connect_is_an_outage_a_fresh_connection_would_not_cure() -> None:
    unavailable = as_unavailable(PoolTimeout("couldn't get a connection after 5.00 sec"))
    assert unavailable is not None
    assert not unavailable.fresh_connection_may_help


def test_the_event_stores_wrapping_of_a_lost_connection_is_an_outage() -> None:
    wrapped = raised_from(
        psycopg.OperationalError("server closed the connection"), StoreOperationalError("x")
    )
    assert as_unavailable(wrapped) is not None


def test_a_busy_sqlite_file_is_not_an_outage() -> None:
    busy = raised_from(sqlite3.OperationalError("database is locked"), StoreOperationalError("x"))
    assert as_unavailable(busy) is None


def test_a_postgresql_error_with_a_statement_cause_is_not_an_outage() -> None:
    canceled = psycopg.errors.QueryCanceled("canceling statement due to statement timeout")
    assert as_unavailable(canceled) is None


async def _app(method: str, failures: int) -> tuple[web.Application, list[int]]:
    calls: list[int] = []

    async def handler(request: web.Request) -> web.Response:
        calls.append(1)
        if len(calls) <= failures:
            raise DatabaseUnavailable(fresh_connection_may_help=True)
        return web.json_response({"data": "ok"})

    app = web.Application(middlewares=[errors])
    app.router.add_route(method, "/items/things", handler)
    return app, calls


async def test_a_read_whose_connection_broke_is_run_once_more(aiohttp_client: Any) -> None:
    app, calls = await _app("GET", failures=1)
    response = await (await aiohttp_client(app)).get("/items/things")
    assert (response.status, len(calls)) == (200, 2)


async def test_a_read_is_retried_only_once(aiohttp_client: Any) -> None:
    app, calls = await _app("GET", failures=2)
    response = await (await aiohttp_client(app)).get("/items/things")
    assert (response.status, len(calls)) == (503, 2)
    assert response.headers["Retry-After"] == "5"
    body = await response.json()
    assert body["errors"][0]["extensions"]["code"] == "SERVICE_UNAVAILABLE"


@pytest.mark.parametrize("method", ["POST", "PATCH", "DELETE"])
async def test_a_write_is_not_retried(aiohttp_client: Any, method: str) -> None:
    app, calls = await _app(method, failures=1)
    response = await (await aiohttp_client(app)).request(method, "/items/things")
    assert (response.status, len(calls)) == (503, 1)
