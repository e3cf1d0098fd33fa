"""The documentation of the EPCIS API's routes (`/v2/epcis/…`).

Adding a route? Add one entry here, keyed "METHOD /path" as the router names it; the
summary defaults to the handler's docstring. `tests/openapi/test_routes.py` names every
route without one. The query parameters are the parser's own list
(`domain.epcis.event_query.named_parameters`).
"""

from api.epcis.documents import JSON_MEDIA_TYPES, XML_MEDIA_TYPES
from api.openapi.operation import Json, Operation, answer, answers, body, header, query
from application.epcis.event_queries import PAGING_PARAMETERS
from domain.epcis.cbv_format import CbvXmlFormat
from domain.epcis.epc_format import EpcFormat
from domain.epcis.event_query import PARAMETER_FAMILIES, named_parameters
from domain.epcis.resources import VALUE_PARAMETERS


def _object(required: tuple[str, ...] = (), **properties: Json) -> Json:
    shape: Json = {"type": "object", "properties": properties}
    if required:
        shape["required"] = list(required)
    return shape


STRING: Json = {"type": "string"}
XML: Json = {"type": "string", "description": "EPCIS 2.0 XML"}
PAGING = (
    query(PAGING_PARAMETERS[0], {"type": "integer", "minimum": 1}, "Events per page"),
    query(PAGING_PARAMETERS[1], description="The page after the one whose Link named it"),
)
FORMATS = (
    header("GS1-EPC-Format", {"type": "string", "enum": list(EpcFormat)}),
    header("GS1-CBV-XML-Format", {"type": "string", "enum": list(CbvXmlFormat)}),
)
EVENT_QUERY = (
    *(query(name, description=meaning) for name, meaning in named_parameters().items()),
    *PAGING,
    *FORMATS,
)
FAMILIES = "Also the parameter families:\n\n" + "\n".join(
    f"- `{pattern}`: {meaning}" for pattern, meaning in PARAMETER_FAMILIES
)
QUERY_DOCUMENT = answer(
    200,
    _object(("type",), type={"const": "EPCISQueryDocument"}, epcisBody={"type": "object"}),
    *JSON_MEDIA_TYPES,
    description="An EPCISQueryDocument; the next page, if any, in the Link header",
)
QUERY_DOCUMENT["200"]["content"].update({m: {"schema": XML} for m in XML_MEDIA_TYPES})
COLLECTION = answer(
    200,
    _object(
        ("type", "member"),
        type={"const": "Collection"},
        member={"type": "array", "items": STRING},
    ),
)
DOCUMENT: Json = _object(
    ("type", "epcisBody"),
    type={"const": "EPCISDocument"},
    schemaVersion=STRING,
    creationDate=STRING,
    epcisBody=_object(eventList={"type": "array", "items": {"type": "object"}}),
)
DOCUMENT_BODY = body(DOCUMENT, *JSON_MEDIA_TYPES)
DOCUMENT_BODY["content"].update({m: {"schema": XML} for m in XML_MEDIA_TYPES})
INVALID = answer(
    400,
    {"type": "string"},
    "text/plain",
    description="`EPCIS Document is invalid;` then one `location: reason` a line",
)
INVALID["400"]["content"]["application/problem+json"] = {
    "schema": {"$ref": "#/components/schemas/EpcisProblem"}
}
CAPTURE_JOB = _object(
    ("captureID",),
    captureID=STRING,
    createdAt=STRING,
    finishedAt={"type": ["string", "null"]},
    running={"type": "boolean"},
    success={"type": "boolean"},
    captureErrorBehaviour=STRING,
    eventsReceived={"type": "integer"},
    eventsCaptured={"type": "integer"},
    errorDeclarationsCaptured={"type": "integer"},
    eventsAlreadyPresent={"type": "integer"},
    eventsRejected={"type": "integer"},
    errors={"type": "array"},
    capturedBy={},
)
NAMED_QUERY = _object(("name", "query"), name=STRING, query={"type": "object"})
SUBSCRIPTION = _object(("subscriptionID",), subscriptionID=STRING, queryName=STRING)
SUBSCRIBE = body(
    _object(
        ("dest",),
        dest=STRING,
        signatureToken=STRING,
        reportIfEmpty={"type": "boolean"},
        stream={"type": "boolean"},
        schedule={"type": "object"},
        initialRecordTime=STRING,
        queryName=STRING,
    )
)
RESOURCE = {"resource": {"type": "string", "enum": list(VALUE_PARAMETERS)}}

ROUTES: dict[str, Operation] = {
    "GET /v2/epcis": Operation("epcis", COLLECTION),
    "GET /v2/epcis/{resource}": Operation("epcis", COLLECTION, path=RESOURCE, query=PAGING),
    "GET /v2/epcis/{resource}/{id}": Operation("epcis", COLLECTION, path=RESOURCE),
    "GET /v2/epcis/{resource}/{id}/events": Operation(
        "epcis", QUERY_DOCUMENT, path=RESOURCE, query=EVENT_QUERY, description=FAMILIES
    ),
    "GET /v2/epcis/events": Operation(
        "epcis", QUERY_DOCUMENT, query=EVENT_QUERY, description=FAMILIES
    ),
    "GET /v2/epcis/events/{event_id}": Operation(
        "epcis", QUERY_DOCUMENT, query=(*PAGING, *FORMATS)
    ),
    "POST /v2/epcis/events": Operation(
        "epcis",
        answers(answer(201), answer(200, description="Stored already"), INVALID),
        body=body({"type": "object"}, *JSON_MEDIA_TYPES),
    ),
    "POST /v2/epcis/capture": Operation(
        "epcis capture",
        answers(
            answer(
                201,
                _object(("captureID",), type=STRING, captureID=STRING, message=STRING),
            ),
            INVALID,
        ),
        query=(header("GS1-Capture-Error-Behaviour", {"enum": ["rollback", "proceed"]}),),
        body=DOCUMENT_BODY,
    ),
    "GET /v2/epcis/capture": Operation(
        "epcis capture", answer(200, {"type": "array", "items": CAPTURE_JOB})
    ),
    "OPTIONS /v2/epcis/capture": Operation(
        "epcis capture", answer(204, description="The capture limits in the headers")
    ),
    "GET /v2/epcis/capture/{capture_id}": Operation("epcis capture", answer(200, CAPTURE_JOB)),
    "POST /v2/epcis/validate": Operation(
        "epcis capture",
        answers(answer(200, _object(("status",), type=STRING, status=STRING)), INVALID),
        body=DOCUMENT_BODY,
    ),
    "POST /v2/epcis/queries": Operation(
        "epcis queries", answer(201, NAMED_QUERY), body=body(NAMED_QUERY)
    ),
    "GET /v2/epcis/queries": Operation(
        "epcis queries", answer(200, {"type": "array", "items": NAMED_QUERY})
    ),
    "GET /v2/epcis/queries/{name}": Operation("epcis queries", answer(200, NAMED_QUERY)),
    "DELETE /v2/epcis/queries/{name}": Operation("epcis queries", answer(204)),
    "GET /v2/epcis/queries/{name}/events": Operation(
        "epcis queries",
        QUERY_DOCUMENT,
        description="With `Upgrade: websocket`: the matching events from now on, one"
        " EPCISQueryDocument a message (from `initialRecordTime` when given).",
        query=(*PAGING, *FORMATS),
    ),
    "POST /v2/epcis/queries/{name}/subscriptions": Operation(
        "epcis subscriptions", answer(201, SUBSCRIPTION), body=SUBSCRIBE
    ),
    "GET /v2/epcis/queries/{name}/subscriptions": Operation(
        "epcis subscriptions", answer(200, {"type": "array", "items": SUBSCRIPTION})
    ),
    "GET /v2/epcis/queries/{name}/subscriptions/{subscription}": Operation(
        "epcis subscriptions", answer(200, SUBSCRIPTION)
    ),
    "DELETE /v2/epcis/queries/{name}/subscriptions/{subscription}": Operation(
        "epcis subscriptions", answer(204)
    ),
    "POST /v2/epcis/subscriptions": Operation(
        "epcis subscriptions", answer(201, SUBSCRIPTION), body=SUBSCRIBE
    ),
    "GET /v2/epcis/subscriptions": Operation(
        "epcis subscriptions", answer(200, {"type": "array", "items": SUBSCRIPTION})
    ),
    "GET /v2/epcis/subscriptions/{subscription}": Operation(
        "epcis subscriptions", answer(200, SUBSCRIPTION)
    ),
    "DELETE /v2/epcis/subscriptions/{subscription}": Operation("epcis subscriptions", answer(204)),
}
