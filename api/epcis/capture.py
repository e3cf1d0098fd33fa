"""`/v2/epcis/capture` and `/v2/epcis/validate`."""

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from aiohttp import web

from api.epcis.documents import (
    XML_PLACES,
    DocumentRejected,
    limit_headers,
    located,
    read_document,
)
from api.epcis.errors import ERROR_HEADERS
from api.epcis.responses import (
    EPCIS_VERSION_HEADERS,
    epcis_exception,
    invalid_document,
    json_response,
)
from api.platform.keys import caller, service
from application.epcis.capture import CaptureJobRow
from application.epcis.capture_outcomes import (
    CaptureLimitExceeded,
    EventIdConflict,
    InvalidDocument,
)
from application.service.errors import NotFound
from domain.epcis.capture_job import ErrorBehaviour

routes = web.RouteTableDef()


def _limits(request: web.Request) -> dict[str, str]:
    settings = service(request).settings
    return limit_headers(settings.capture_max_events, settings.capture_max_bytes)


def _error_behaviour(request: web.Request) -> ErrorBehaviour:
    value = request.headers.get("GS1-Capture-Error-Behaviour", "rollback").strip().lower()
    if value == "rollback":
        return "rollback"
    if value == "proceed":
        return "proceed"
    raise DocumentRejected(
        epcis_exception(
            400,
            "ValidationException",
            f"GS1-Capture-Error-Behaviour {value!a} is not supported; use rollback or proceed",
            _limits(request),
        )
    )


#: Why a capture request was refused as a whole, by the refusal; the metrics' `reason`.
_REJECTIONS: tuple[tuple[type[Exception], str], ...] = (
    (InvalidDocument, "validation"),
    (EventIdConflict, "conflict"),
    (CaptureLimitExceeded, "event_limit"),
)
_REJECTED_BODIES = {413: "size", 415: "media_type"}


async def _counted(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.Response]]
) -> web.Response:
    """Answer a capture request, counting it in the metrics when it is refused."""
    try:
        return await handler(request)
    except DocumentRejected as exc:
        reason = _REJECTED_BODIES.get(exc.response.status, "malformed")
        service(request).metrics.capture_rejected(reason)
        raise
    except Exception as exc:
        for kind, reason in _REJECTIONS:
            if isinstance(exc, kind):
                service(request).metrics.capture_rejected(reason)
        raise


@routes.view("/v2/epcis/capture")
class CaptureView(web.View):
    """Capture a document; list capture jobs; advertise the limits."""

    async def post(self) -> web.Response:
        """Capture: 201 with the capture ID, or the spec's invalid-document answer."""
        return await _counted(self.request, _capture_document)

    async def get(self) -> web.Response:
        """The newest capture jobs first."""
        jobs = await service(self.request).epcis.capture.jobs(100, caller(self.request))
        return json_response([_job_body(job) for job in jobs], headers=_limits(self.request))

    async def options(self) -> web.Response:
        """Discovery: the limits and error behaviours of the capture interface (the
        `epcis_discovery` middleware adds `Allow` and what every path states)."""
        return web.Response(
            status=204,
            headers={
                **_limits(self.request),
                "GS1-Capture-Error-Behaviour": "rollback, proceed",
            },
        )


async def _capture_document(request: web.Request) -> web.Response:
    tracepoint = service(request)
    limits = request[ERROR_HEADERS] = _limits(request)
    behaviour = _error_behaviour(request)
    document = await read_document(request, tracepoint.settings.capture_max_bytes, limits)
    who = caller(request)
    outcome = await tracepoint.epcis.capture.capture(
        document, behaviour, who.user, who.account, request.get(XML_PLACES)
    )
    message = f"Captured {outcome.events_stored} new event(s); "
    if outcome.declarations_stored:
        message += f"{outcome.declarations_stored} new error declaration(s); "
    message += f"{outcome.events_already_present} already present"
    if outcome.master_data_elements:
        message += f"; {outcome.master_data_elements} master-data element(s) recorded"
    if outcome.events_rejected:
        message += f"; {outcome.events_rejected} rejected (see the capture job)"
    location = f"/v2/epcis/capture/{outcome.capture_id}"
    return json_response(
        {"type": "EPCISCaptureResponse", "captureID": outcome.capture_id, "message": message},
        status=201,
        headers={**limits, "Location": location, "GS1-Capture-Error-Behaviour": behaviour},
    )


def _job_body(job: CaptureJobRow) -> dict[str, Any]:
    return {
        "captureID": job.capture_id,
        "createdAt": job.created_at,
        "finishedAt": job.finished_at,
        "running": False,
        "success": job.events_rejected == 0,
        "captureErrorBehaviour": job.error_behaviour,
        "eventsReceived": job.events_received,
        "eventsCaptured": job.events_stored,
        "errorDeclarationsCaptured": job.declarations_stored,
        "eventsAlreadyPresent": job.events_already_present,
        "eventsRejected": job.events_rejected,
        "errors": job.errors,
        "capturedBy": job.captured_by,
    }


@routes.get("/v2/epcis/capture/{capture_id}")
async def capture_job(request: web.Request) -> web.Response:
    """One capture job: counts, timestamps, errors."""
    capture_id = request.match_info["capture_id"]
    job = await service(request).epcis.capture.job(capture_id, caller(request))
    if job is None:
        raise NotFound(f"No capture job with ID '{capture_id}'")
    return json_response(_job_body(job))


@routes.post("/v2/epcis/events")
async def capture_event(request: web.Request) -> web.Response:
    """Capture one event: 201 with its Location; 200 with it when it was stored already;
    409 when its ID names an event with other content (the binding's `POST /events`)."""
    return await _counted(request, _capture_event)


async def _capture_event(request: web.Request) -> web.Response:
    tracepoint = service(request)
    limits = request[ERROR_HEADERS] = _limits(request)
    event = await read_document(request, tracepoint.settings.capture_max_bytes, limits)
    who = caller(request)
    captured = await tracepoint.epcis.event_capture.capture(event, who.user, who.account)
    location = "/v2/epcis/events/" + quote(captured.event_id, safe="")
    return web.Response(
        status=201 if captured.new else 200,
        headers={**EPCIS_VERSION_HEADERS, **limits, "Location": location},
    )


@routes.post("/v2/epcis/validate")
async def validate(request: web.Request) -> web.Response:
    """Validate a document without storing anything."""
    tracepoint = service(request)
    limits = request[ERROR_HEADERS] = _limits(request)
    document = await read_document(request, tracepoint.settings.capture_max_bytes, limits)
    violations = await tracepoint.epcis.capture.validate_async(document)
    if violations:
        return invalid_document(located(request, violations))
    count = len(document["epcisBody"]["eventList"])
    return json_response(
        {
            "type": "EPCISValidationResponse",
            "status": "valid",
            "message": f"The document is a valid EPCIS 2.0 document with {count} event(s)",
        },
        headers=limits,
    )
