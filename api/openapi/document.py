"""The OpenAPI 3.1 document: every route of the router, described by its registry entry
(`platform_routes`, `audit_routes`, `epcis_routes`) or, for the collection views, by the catalogue.

A route without an entry is left out here and named by `tests/openapi/test_routes.py`.
"""

import inspect
import re
from collections.abc import Iterator
from typing import Any

from aiohttp import hdrs, web

from api.epcis.discovery import vendor_version
from api.openapi import audit_routes, epcis_routes, platform_routes
from api.openapi.collection_routes import (
    collection_bases,
    collection_operation,
    expand,
    link_created,
    view_of,
)
from api.openapi.operation import Json, Operation
from api.openapi.shapes import PLATFORM_ERROR, PROBLEM, item_schema
from api.platform.families import EPCIS_PREFIX
from domain.collections.schema import Schema

#: Methods OpenAPI 3.1 has a field for; SEARCH goes under `x-additionalOperations`, the
#: name OpenAPI 3.2 gives other methods.
_OPENAPI_METHODS = ("GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE")
_CLASS_VIEW_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
_PARAMETER = re.compile(r"\{([^}]+)\}")
_STRING: Json = {"type": "string"}
_PLATFORM_SCHEMES = ("bearer", "accessTokenQuery", "sessionCookie")

#: Every registry entry, by "METHOD /path" (the route's path as the router gives it).
REGISTRY: dict[str, Operation] = {
    **platform_routes.ROUTES,
    **audit_routes.ROUTES,
    **epcis_routes.ROUTES,
}

SECURITY_SCHEMES: Json = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "An access token from /auth/login or /auth/refresh, or a user's"
        " static token (platform API).",
    },
    "accessTokenQuery": {
        "type": "apiKey",
        "in": "query",
        "name": "access_token",
        "description": "The same tokens as a query parameter (platform API).",
    },
    "sessionCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "platform_session_token",
        "description": "The cookie of a session-mode login (platform API).",
    },
    "epcisStaticToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A user's static token (EPCIS API); access tokens are not taken.",
    },
}


def route_methods(route: web.AbstractRoute) -> Iterator[str]:
    """The methods a route answers (a class-based view: those it defines); HEAD, which
    aiohttp adds beside each GET, is left out."""
    if route.method == hdrs.METH_ANY:
        handler = route.handler
        if isinstance(handler, type) and issubclass(handler, web.View):
            yield from (m for m in _CLASS_VIEW_METHODS if hasattr(handler, m.lower()))
        return
    if route.method != hdrs.METH_HEAD:
        yield route.method


def routes(app: web.Application) -> Iterator[tuple[str, str, web.AbstractRoute]]:
    """(method, path, route) of every route of the application, paths as in the registry."""
    for route in app.router.routes():
        resource = route.resource
        if resource is None:
            continue
        for method in route_methods(route):
            yield method, resource.canonical, route


def build_document(app: web.Application, schema: Schema, shown: frozenset[str]) -> Json:
    """The document of every route, with the paths of the collections in `shown`."""
    bases = collection_bases(schema)
    paths: dict[str, Json] = {}
    for method, path, route in routes(app):
        entry = REGISTRY.get(f"{method} {path}")
        if entry is not None:
            _add(paths, method, path, entry, route)
            continue
        found = view_of(method, path, bases)
        if found is None:
            continue
        base, view = found
        suffix = path[len(base) :]
        for name, concrete in expand(base, bases[base], suffix):
            if name in shown:
                operation = collection_operation(view, schema[name], schema)
                _add(paths, method, concrete, operation, route)
    link_created(paths, schema, bases)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tracepoint",
            "version": vendor_version(),
            "description": "The platform API (Directus-style, `/…`) and the GS1 EPCIS 2.0"
            " API (`/v2/epcis/…`) of one Tracepoint service.",
        },
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": {
                "PlatformError": PLATFORM_ERROR,
                "EpcisProblem": PROBLEM,
                **{c.name: item_schema(c, schema) for c in schema},
            },
            "responses": {
                "PlatformError": {
                    "description": 'Directus\'s error envelope: {"errors": [{message,'
                    " extensions: {code}}]}",
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/PlatformError"}
                        }
                    },
                },
                "EpcisProblem": {
                    "description": "An EPCIS exception (RFC 7807 problem details; XML for a"
                    " caller preferring XML)",
                    "content": {
                        "application/problem+json": {"schema": _schema("EpcisProblem")},
                        "application/problem+xml": {"schema": {"type": "string"}},
                    },
                },
            },
            "securitySchemes": SECURITY_SCHEMES,
        },
    }


def _add(paths: dict[str, Json], method: str, path: str, entry: Operation, route: Any) -> None:
    epcis = path == EPCIS_PREFIX or path.startswith(EPCIS_PREFIX + "/")
    error = "EpcisProblem" if epcis else "PlatformError"
    operation: Json = {
        "operationId": _operation_id(method, path),
        "tags": [entry.tag],
        "summary": entry.summary or _docstring(route, method),
        "responses": {
            **entry.responses,
            "default": {"$ref": f"#/components/responses/{error}"},
        },
    }
    if entry.description:
        operation["description"] = entry.description
    parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": entry.path.get(name, {"type": "string"}),
        }
        for name in _PARAMETER.findall(path)
    ]
    parameters += list(entry.query)
    if parameters:
        operation["parameters"] = parameters
    if entry.body is not None:
        operation["requestBody"] = entry.body
    if entry.public:
        operation["security"] = [{}]
    elif epcis:
        operation["security"] = [{}, {"epcisStaticToken": []}]
    else:
        operation["security"] = [
            {},
            {"bearer": []},
            {"accessTokenQuery": []},
            {"sessionCookie": []},
        ]
    item = paths.setdefault(path, {})
    if method in _OPENAPI_METHODS:
        item[method.lower()] = operation
    else:
        item.setdefault("x-additionalOperations", {})[method] = operation


def _schema(name: str) -> Json:
    return {"$ref": f"#/components/schemas/{name}"}


def _operation_id(method: str, path: str) -> str:
    words = re.sub(r"[^A-Za-z0-9]+", "_", path).strip("_")
    return f"{method.lower()}_{words or 'root'}"


def _docstring(route: Any, method: str) -> str:
    handler = route.handler
    if isinstance(handler, type):
        handler = getattr(handler, method.lower(), handler)
    text = inspect.getdoc(handler) or ""
    return text.split("\n\n")[0].replace("\n", " ").strip()
