"""The documentation of the platform API's routes other than the collection views (those
come from the catalogue: `collection_routes`).

Adding a route? Add one entry here, keyed "METHOD /path" as the router names it (the path
without regular expressions: `/items/{collection}/{key}`); the summary defaults to the
handler's docstring. `tests/openapi/test_routes.py` names every route without one.
"""

from api.items.discovery import SCHEMA_WRITES
from api.openapi.operation import Json, Operation, answer, answers, body, query
from api.openapi.shapes import data, nullable

Ref = dict[str, str]


def item(collection: str) -> Ref:
    """An item of a collection, as the catalogue describes it."""
    return {"$ref": f"#/components/schemas/{collection}"}


def object_of(**properties: Json) -> Json:
    """An object schema of these properties (none required)."""
    return {"type": "object", "properties": properties}


STRING: Json = {"type": "string"}
TEXT: Json = {"type": "string", "minLength": 1}
SIGN_IN = data(
    object_of(
        access_token=STRING,
        refresh_token=nullable(STRING),
        expires={"type": "integer", "description": "Milliseconds"},
    )
)
MODE: Json = {"type": "string", "enum": ["json", "cookie", "session"]}
TOKEN_BODY = body(object_of(refresh_token=STRING, mode=MODE), required=False)
ACCESS: Json = object_of(access={"type": "boolean"})
PAGINATION = object_of(
    page={"type": "integer"},
    perPage={"type": "integer"},
    total={"type": "integer"},
    totalPages={"type": "integer"},
)
PAGED_QUERY = (
    query("page", {"type": "integer", "minimum": 1}),
    query("per_page", {"type": "integer", "minimum": 1, "maximum": 200}),
    query("sort", description="createdAt, name or updatedAt; `-` for descending"),
    query("search", description="Text in the name"),
)
RESOLVED = answers(
    answer(200, data({"type": "object"}), description="The code's description"),
    answer(307, description="To the page of the code's lot, product or location"),
)
RESOLVER_QUERY = (
    query("linkType", description="`all`: describe the code instead of redirecting"),
    query("lat", {"type": "number"}),
    query("lng", {"type": "number"}),
)
HTML: Json = {"type": "string"}
#: The pages behind the links of password-reset and invitation mails.
#: The older links of those mails, now pages of the console.
TO_CONSOLE = answer(302, description="Sent on to the console's page, with the same query")
FORM_POST = (
    "The console's page of the mail's link sends JSON, as API clients do; an HTML form "
    "posted here (`token`, `password`, `password_confirm`, form-encoded: a page saved "
    "before the console served these links) gets a page back."
)
_TIME: Json = nullable({"type": "string", "description": "UTC, YYYY-MM-DDTHH:MM:SS.mmmZ"})
TRACE_NODE: Json = object_of(
    id=STRING,
    kind={"type": "string", "enum": ["instance", "class"]},
    digital_link=nullable(STRING),
    eventTime=_TIME,
    bizStep=nullable(STRING),
    disposition=nullable(STRING),
    bizLocation=nullable(STRING),
    readPoint=nullable(STRING),
    parent=nullable(STRING),
)
TRACE_EDGE: Json = {
    "type": "object",
    "properties": {
        "from": STRING,
        "to": STRING,
        "relation": {
            "type": "string",
            "enum": ["contained_in", "associated_with", "transformed_into", "member_of"],
        },
        "eventID": STRING,
        "eventTime": STRING,
        "until": _TIME,
    },
}
TRACE: Json = object_of(
    root=STRING,
    nodes={"type": "array", "items": TRACE_NODE},
    edges={"type": "array", "items": TRACE_EDGE},
    truncated={"type": "boolean"},
)
MULTIPART: Json = {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}
WRITTEN_FILE = answers(
    answer(
        200, data(nullable({"anyOf": [item("files"), {"type": "array", "items": item("files")}]}))
    ),
    answer(204),
)
BYTES = answer(200, {"type": "string", "format": "binary"}, "*/*", description="The file's bytes")


def _described(*required: str, **optional: Json) -> Json:
    """A schema description in Directus's shape: its names, `meta` and `schema`."""
    properties: Json = dict.fromkeys(required, STRING) | optional
    properties |= {"meta": nullable({"type": "object"}), "schema": nullable({"type": "object"})}
    return {"type": "object", "required": [*required, "meta", "schema"], "properties": properties}


COLLECTION = _described("collection")
FIELD = _described("collection", "field", "type")
RELATION = _described("collection", "field", related_collection=nullable(STRING))
SERVER_INFO = data(
    {
        "type": "object",
        "required": ["project"],
        "properties": {
            "project": {"type": "object", "required": ["project_name"]},
            "rateLimit": {"type": "boolean"},
            "rateLimitGlobal": {"type": "boolean"},
            "queryLimit": object_of(default={"type": "integer"}, max={"type": "integer"}),
            "websocket": {"type": "boolean"},
            "version": STRING,
        },
    }
)


def _schema_reads() -> dict[str, Operation]:
    """`/collections`, `/fields` and `/relations`: one or a list, as the path names."""
    reads: dict[str, Operation] = {}
    for base, one in (("/collections", COLLECTION), ("/fields", FIELD), ("/relations", RELATION)):
        many = data({"type": "array", "items": one})
        reads[f"GET {base}"] = Operation("schema", answer(200, many))
        if base == "/collections":
            reads["GET /collections/{collection}"] = Operation("schema", answer(200, data(one)))
            continue
        reads[f"GET {base}/{{collection}}"] = Operation("schema", answer(200, many))
        reads[f"GET {base}/{{collection}}/{{field}}"] = Operation("schema", answer(200, data(one)))
    return reads


def _schema_writes() -> dict[str, Operation]:
    """The writes Directus takes on the schema, each refused: the code makes the schema."""
    refused = answer(403, {"$ref": "#/components/schemas/PlatformError"}, description="Refused")
    return {
        f"{method} {path}": Operation(
            "schema", refused, "Refused: the schema is fixed by the service"
        )
        for path, methods in SCHEMA_WRITES.items()
        for method in methods
    }


def resolving(summary: str) -> Operation:
    """A resolver route: public, redirecting or describing."""
    return Operation("resolver", RESOLVED, summary, query=RESOLVER_QUERY, public=True)


ROUTES: dict[str, Operation] = {
    "GET /server/ping": Operation("server", answer(200, STRING, "text/plain"), public=True),
    "GET /metrics": Operation(
        "server",
        answer(200, STRING, "text/plain"),
        description="Prometheus metrics (docs/monitoring.md); 404 unless METRICS_ENABLED. "
        "A token of METRICS_TOKENS (`Bearer` or `Metrics` scheme) or an administrator "
        "reads them; anyone else gets 403.",
    ),
    "GET /server/health": Operation(
        "server",
        answers(
            answer(200, object_of(status={"const": "ok"})),
            answer(503, object_of(status={"const": "error"}, checks={"type": "array"})),
        ),
        public=True,
    ),
    "GET /server/specs/oas": Operation(
        "server",
        answer(200, {"type": "object", "required": ["openapi", "paths"]}),
        description="This document; the collections the caller may not read are left out.",
    ),
    "GET /server/info": Operation(
        "server",
        answer(200, SERVER_INFO),
        description="The project for everyone; limits for signed-in users; the version for"
        " administrators.",
        public=True,
    ),
    **_schema_reads(),
    **_schema_writes(),
    "GET /auth": Operation(
        "auth",
        answer(
            200,
            object_of(
                data={
                    "type": "array",
                    "items": object_of(name=STRING, driver=STRING, label=STRING, icon=STRING)
                    | {"required": ["name", "driver"]},
                },
                disableDefault={"type": "boolean"},
            ),
        ),
        description="The sign-in providers of AUTH_PROVIDERS; disableDefault: whether"
        " e-mail and password sign-in (POST /auth/login) is switched off.",
        public=True,
    ),
    "GET /auth/login/{provider}": Operation(
        "auth",
        answers(
            answer(302, description="To the provider's sign-in page"),
            answer(400, description="A redirect not allowed, or mode json with a redirect"),
        ),
        query=(
            query(
                "redirect",
                description="Where the browser goes after the sign-in: a path of this"
                " service, a URL on PUBLIC_URL's origin or on AUTH_<PROVIDER>_REDIRECT_ALLOW_LIST",
            ),
            query("mode", MODE, description="Default: json; session with a redirect"),
            query("otp", description="The one-time password of a user with 2FA"),
        ),
        description="Single sign-on (OpenID Connect): the authorization-code flow with PKCE,"
        " state and nonce. 403 INVALID_PROVIDER for an unknown provider, 503"
        " INVALID_PROVIDER_CONFIG or SERVICE_UNAVAILABLE when it cannot be used.",
        public=True,
    ),
    "GET /auth/login/{provider}/callback": Operation(
        "auth",
        answers(
            answer(200, SIGN_IN, description="Signed in (no redirect asked for)"),
            answer(302, description="To the redirect; `?reason=<code>` when refused"),
        ),
        query=(query("state"), query("code"), query("error")),
        description="Where the provider sends the browser back. A state that is missing,"
        " unknown, used, expired or from another browser is 401 INVALID_CREDENTIALS.",
        public=True,
    ),
    "POST /auth/login/{provider}/callback": Operation(
        "auth",
        answer(303, description="To the GET callback with the posted fields"),
        body=body(object_of(state=STRING, code=STRING), "application/x-www-form-urlencoded"),
        public=True,
    ),
    "POST /auth/login": Operation(
        "auth",
        answer(200, SIGN_IN),
        body=body(
            {
                "type": "object",
                "required": ["email", "password"],
                "properties": {"email": TEXT, "password": TEXT, "otp": TEXT, "mode": MODE},
            }
        ),
        description="Failed logins in a row lock the password sign-in of the account and of"
        " the client address for a while, longer with each failure: 429 REQUESTS_EXCEEDED"
        " with Retry-After, whatever the password. The account, its static tokens and its"
        " sessions are not touched.",
        public=True,
    ),
    "POST /auth/refresh": Operation(
        "auth",
        answer(200, SIGN_IN),
        body=TOKEN_BODY,
        description="A refresh token works once. One that a refresh already replaced ends"
        " its whole sign-in (every token its refreshes handed out): 401 INVALID_CREDENTIALS.",
        public=True,
    ),
    "POST /auth/logout": Operation("auth", answer(204), body=TOKEN_BODY, public=True),
    "POST /auth/password/request": Operation(
        "auth",
        answer(204),
        body=body(object_of(email=TEXT, reset_url=STRING) | {"required": ["email"]}),
        public=True,
    ),
    "POST /auth/password/reset": Operation(
        "auth",
        answer(204),
        body=body(object_of(token=TEXT, password=TEXT) | {"required": ["token", "password"]}),
        public=True,
        description=FORM_POST,
    ),
    "GET /admin/reset-password": Operation(
        "auth",
        TO_CONSOLE,
        description="The link of older reset mails: sent on to `/console/reset-password`.",
        query=(query("token", TEXT, description="The token of the reset mail's link"),),
        public=True,
    ),
    "GET /admin/accept-invite": Operation(
        "users",
        TO_CONSOLE,
        description="The link of older invitation mails: sent on to `/console/accept-invite`.",
        query=(query("token", TEXT, description="The token of the invitation mail's link"),),
        public=True,
    ),
    "GET /console": Operation(
        "console", TO_CONSOLE, "The web console (docs/console.md)", public=True
    ),
    "GET /console/{path}": Operation(
        "console",
        answers(
            answer(200, HTML, "text/html", description="The console's page, or one of its files"),
            answer(404, STRING, "text/plain", description="No such file of the console"),
        ),
        "The web console: its files, and its page at any other path (docs/console.md)",
        public=True,
    ),
    "POST /users/register": Operation(
        "users",
        answer(204),
        body=body(
            object_of(
                email=TEXT,
                password=TEXT,
                first_name=STRING,
                last_name=STRING,
                verification_url=STRING,
            )
            | {"required": ["email", "password"]}
        ),
    ),
    "GET /users/register/verify-email": Operation(
        "users",
        answers(
            answer(204),
            answer(302, description="A browser (`Accept: text/html`): the console's page"),
        ),
        description="A caller whose `Accept` prefers `text/html` (a browser opening the link "
        "of an older mail) is sent on to `/console/verify-email`, which makes this call.",
        query=({**query("token", TEXT), "required": True},),
    ),
    "POST /users/invite": Operation(
        "users",
        answer(204),
        body=body(object_of(email={}, role=STRING, invite_url=STRING)),
    ),
    "POST /users/invite/accept": Operation(
        "users",
        answer(204),
        body=body(object_of(token=TEXT, password=TEXT) | {"required": ["token", "password"]}),
        description=FORM_POST,
    ),
    "POST /users/me/tfa/generate": Operation(
        "users",
        answer(200, data(object_of(secret=STRING, otpauth_url=STRING))),
        body=body(object_of(password=TEXT)),
        description="The password is required of users who sign in with one (provider"
        " `default`); users of a single sign-on provider give none.",
    ),
    "POST /users/me/tfa/enable": Operation(
        "users",
        answer(204),
        body=body(object_of(secret=TEXT, otp=TEXT) | {"required": ["secret", "otp"]}),
    ),
    "POST /users/me/tfa/disable": Operation(
        "users", answer(204), body=body(object_of(otp=TEXT) | {"required": ["otp"]})
    ),
    "POST /users/{key}/tfa/disable": Operation("users", answer(204)),
    "GET /users/me": Operation("users", answer(200, data(item("users"))), query=(query("fields"),)),
    "PATCH /users/me": Operation(
        "users",
        answers(answer(200, data(item("users"))), answer(204)),
        body=body({"type": "object"}),
    ),
    "GET /permissions/me": Operation("permissions", answer(200, data({"type": "object"}))),
    "GET /permissions/me/{collection}": Operation(
        "permissions",
        answer(200, data(object_of(update=ACCESS, delete=ACCESS, share=ACCESS))),
        description="Whether the caller holds each action on the collection at all.",
    ),
    "GET /permissions/me/{collection}/{key}": Operation(
        "permissions",
        answer(200, data(object_of(update=ACCESS, delete=ACCESS, share=ACCESS))),
    ),
    "GET /policies/me/globals": Operation(
        "policies",
        answer(
            200,
            data(
                object_of(
                    app_access={"type": "boolean"},
                    admin_access={"type": "boolean"},
                    enforce_tfa={"type": "boolean"},
                )
            ),
        ),
    ),
    "GET /roles/me": Operation(
        "roles",
        answer(200, data({"type": "array", "items": item("roles")})),
        query=(query("fields"),),
    ),
    "GET /v1/products": Operation(
        "v1",
        answer(200, object_of(products={"type": "array"}, pagination=PAGINATION)),
        query=PAGED_QUERY,
    ),
    "GET /v1/suppliers": Operation(
        "v1",
        answer(200, object_of(suppliers={"type": "array"}, pagination=PAGINATION)),
        query=PAGED_QUERY,
    ),
    "POST /items/epcis_outbound_flow/{key}/run": Operation(
        "epcis_outbound_flow",
        answer(
            200,
            data(
                object_of(
                    outcome=STRING,
                    sent={"type": "integer"},
                    documents={"type": "integer"},
                    http_status=nullable({"type": "integer"}),
                    error=nullable(STRING),
                    last_position={"type": "integer"},
                    backlog={"type": "integer"},
                )
            ),
        ),
    ),
    "GET /items/epcis_outbound_flow/{key}/runs": Operation(
        "epcis_outbound_flow",
        answer(200, data({"type": "array", "items": item("epcis_outbound_flow_run")})),
        query=(query("fields"), query("limit", {"type": "integer"})),
    ),
    "POST /items/lot/{key}/publish": Operation(
        "lot",
        answer(200, data(object_of(lot=STRING, eventID=STRING, created={"type": "boolean"}))),
    ),
    "GET /trace": Operation(
        "trace",
        answer(200, data(TRACE)),
        "The lineage of an EPC or class: what it went into, what went into it",
        description="Needs read on epcis_event; the caller's item rules apply to every "
        "event an edge or a node's state comes from (docs/trace.md).",
        query=(
            {
                **query("epc", TEXT, "An EPC or class: EPC URN or GS1 Digital Link"),
                "required": True,
            },
            query("direction", {"type": "string", "enum": ["downstream", "upstream", "both"]}),
            query("depth", {"type": "integer", "minimum": 0}, "Hops; 10 unless given"),
            query("at", {"type": "string", "format": "date-time"}, "The relations held then"),
        ),
    ),
    "POST /files": Operation(
        "files",
        WRITTEN_FILE,
        "Upload files",
        description="multipart/form-data: the item's fields first, then one or more files.",
        body=body(MULTIPART, "multipart/form-data"),
    ),
    "PATCH /files/{key}": Operation(
        "files",
        WRITTEN_FILE,
        "Replace a file's bytes (multipart) or change its fields (JSON)",
        path={"key": {"type": "string", "format": "uuid"}},
        body=body({"type": "object"}, "application/json", "multipart/form-data"),
    ),
    "GET /assets/{key}": Operation("files", BYTES, query=(query("download"),)),
    "GET /assets/{key}/{filename}": Operation("files", BYTES, query=(query("download"),)),
    "GET /{code}": Operation(
        "resolver",
        RESOLVED,
        "Resolve a short code",
        path={"code": {"type": "string", "pattern": "^[0-9A-Za-z]{6,20}$"}},
        query=RESOLVER_QUERY,
        public=True,
    ),
    "GET /00/{sscc}": resolving("Resolve an SSCC"),
    "GET /8003/{grai}": resolving("Resolve a GRAI"),
    "GET /01/{gtin}/21/{serial}": resolving("Resolve a serialised GTIN"),
    "GET /01/{gtin}/10/{lot}/21/{serial}": Operation(
        "resolver",
        RESOLVED,
        "Resolve a serialised GTIN of a lot",
        query=RESOLVER_QUERY,
        public=True,
    ),
    "GET /01/{gtin}/21/{serial}/10/{lot}": Operation(
        "resolver",
        RESOLVED,
        "Resolve a serialised GTIN of a lot",
        query=RESOLVER_QUERY,
        public=True,
    ),
}
