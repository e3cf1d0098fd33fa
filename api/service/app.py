"""The aiohttp application: both API families from one process."""

from aiohttp import web

from api.access import auth, me, pages, single_sign_on, system_collections, user_flows
from api.access.authentication import platform_authentication
from api.audit import routes as audit
from api.codes import resolver
from api.console import assets as console
from api.epcis import capture, queries, resources, subscriptions, trace
from api.epcis.authentication import epcis_authentication
from api.epcis.discovery import epcis_discovery
from api.epcis.negotiation import epcis_negotiation
from api.flows import outbound, publish_lot
from api.items import collections, discovery, files, history, v1_lists
from api.logs.context import echo_request_id, request_context
from api.openapi import routes as openapi
from api.operations import metrics, server
from api.operations.cors import cors, install_cors
from api.operations.read_routing import read_your_writes
from api.operations.security_headers import add_security_headers
from api.platform.keys import TRACEPOINT
from api.platform.middleware import errors
from application.service.runtime import Tracepoint


def create_app(tracepoint: Tracepoint, *, manage_lifecycle: bool = True) -> web.Application:
    """Routes, middlewares and, unless the caller manages it, start-up and shut-down."""
    # The body limit is enforced per route (capture answers 413 with the limit); this is
    # only the outer bound aiohttp applies when a handler reads a whole body at once.
    # Around all but the request context, so it times and counts the answer the client
    # gets; only when served.
    measured = [metrics.request_metrics] if tracepoint.settings.metrics_enabled else []
    app = web.Application(
        middlewares=[
            request_context,
            *measured,
            cors,
            errors,
            epcis_authentication,
            epcis_negotiation,
            epcis_discovery,
            platform_authentication,
            read_your_writes,
        ],
        client_max_size=tracepoint.settings.capture_max_bytes + 1,
    )
    app[TRACEPOINT] = tracepoint
    app.on_response_prepare.extend((echo_request_id, add_security_headers))
    install_cors(app)
    # `/users/me` and `/permissions/me` before the collections' `/{key}` routes.
    platform = (
        auth.routes,
        single_sign_on.routes,
        pages.routes,
        user_flows.routes,
        me.routes,
        v1_lists.routes,
        outbound.routes,
        publish_lot.routes,
        trace.routes,
        audit.routes,
    )
    epcis = (capture.routes, queries.routes, resources.routes, subscriptions.routes)
    for table in (server.routes, metrics.routes, openapi.routes, *epcis, *platform):
        app.add_routes(table)
    system_collections.add_routes(app)
    files.add_routes(app)
    history.add_routes(app)
    collections.add_routes(app)
    discovery.add_routes(app)
    # Last: a short code is any one segment no other route claims.
    app.add_routes(console.routes)
    app.add_routes(resolver.routes)
    if manage_lifecycle:

        async def start(app: web.Application) -> None:
            await tracepoint.start()

        async def stop(app: web.Application) -> None:
            await tracepoint.stop()

        app.on_startup.append(start)
        app.on_cleanup.append(stop)
    return app
