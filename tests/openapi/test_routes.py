"""The document names every route of the router, and every path it names is routed.

A failure lists the routes to document: add an entry to `api/openapi/platform_routes.py`
(`audit_routes.py` for `/audit`) or `api/openapi/epcis_routes.py` (see docs/openapi.md).
"""

import re
from typing import Any

import pytest
from aiohttp import hdrs, web
from aiohttp.test_utils import TestClient, make_mocked_request

from api.openapi.document import REGISTRY
from tests.conftest import AUTH

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

_PARAMETER = re.compile(r"\{([^}]+)\}")


def router_routes(app: web.Application) -> set[str]:
    """ "METHOD /path" of every route (a class-based view: each method it defines); the HEAD
    aiohttp adds beside a GET is not a route of ours."""
    found = set()
    for route in app.router.routes():
        assert route.resource is not None
        methods = [route.method]
        if route.method == hdrs.METH_ANY:
            view = route.handler
            methods = [m for m in hdrs.METH_ALL if hasattr(view, m.lower())]
        found |= {f"{m} {route.resource.canonical}" for m in methods if m != hdrs.METH_HEAD}
    return found


def _sample(operation: dict[str, Any], name: str) -> str:
    """A value the router takes for a path parameter."""
    for parameter in operation.get("parameters", []):
        if parameter["name"] == name and parameter["in"] == "path":
            schema = parameter["schema"]
            if "enum" in schema:
                return str(schema["enum"][0])
    return "Sample01"


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) of every operation the document names."""
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method == "x-additionalOperations":
                found += [(m, path, op) for m, op in operation.items()]
            else:
                found.append((method.upper(), path, operation))
    return found


async def documented_routes(app: web.Application, document: dict[str, Any]) -> dict[str, str]:
    """Each documented "METHOD /path" and the route it reaches ("" when none)."""
    reached = {}
    for method, path, operation in operations(document):
        concrete = path
        for name in _PARAMETER.findall(path):
            concrete = concrete.replace(f"{{{name}}}", _sample(operation, name))
        match = await app.router.resolve(make_mocked_request(method, concrete, app=app))
        route = match.route.resource if match.http_exception is None else None
        reached[f"{method} {path}"] = f"{method} {route.canonical}" if route else ""
    return reached


async def test_every_route_of_the_router_is_documented(client: TestClient[Any, Any]) -> None:
    document = await (await client.get("/server/specs/oas", headers=AUTH)).json()
    reached = await documented_routes(client.server.app, document)
    missing = sorted(router_routes(client.server.app) - set(reached.values()))
    assert not missing, f"routes without documentation: {missing}"


async def test_every_documented_operation_is_routed(client: TestClient[Any, Any]) -> None:
    document = await (await client.get("/server/specs/oas", headers=AUTH)).json()
    reached = await documented_routes(client.server.app, document)
    extra = sorted(operation for operation, route in reached.items() if not route)
    assert not extra, f"documented operations no route serves: {extra}"


async def test_every_registry_entry_names_a_route(client: TestClient[Any, Any]) -> None:
    stale = sorted(set(REGISTRY) - router_routes(client.server.app))
    assert not stale, f"registry entries of routes that no longer exist: {stale}"
