"""Content negotiation of the EPCIS API (REST binding): the media type of an answer, the
EPCIS and CBV versions, and the forms of EPCs and CBV values a client asks for.

What a request cannot be served is refused with `406 NotAcceptableException` before any
work is done; what it can is kept on the request (`negotiated`) for the renderers.
"""

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from aiohttp import web

from api.epcis.documents import JSON_MEDIA_TYPES, XML_MEDIA_TYPES
from api.platform.families import is_epcis
from domain.epcis.cbv_format import CbvXmlFormat, UnknownCbvFormat, parse_cbv_xml_format
from domain.epcis.epc_format import (
    DEFAULT_EPC_FORMAT,
    EpcFormat,
    UnknownEpcFormat,
    parse_epc_format,
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Version = tuple[int, int]

#: Routes that answer EPCISQueryDocuments, which the binding also gives in XML; every
#: other route answers JSON only.
_QUERY_DOCUMENT_ROUTES = frozenset(
    {
        "/v2/epcis/events",
        "/v2/epcis/events/{event_id}",
        "/v2/epcis/queries/{name}/events",
        "/v2/epcis/{resource}/{id}/events",
    }
)

#: Routes whose `POST` makes a webhook subscription: there `Accept` chooses the media type
#: of the EPCISQueryDocuments the subscription will deliver (the `201` is JSON).
_SUBSCRIBING_ROUTES = frozenset(
    {"/v2/epcis/queries/{name}/subscriptions", "/v2/epcis/subscriptions"}
)

#: The EPCIS and CBV version Tracepoint implements, as headers state it. A 2.0.x patch
#: release corrects 2.0 without changing it: every 2.0.x is served.
VERSION = "2.0.0"
#: The versions answers are given in.
ANSWER_VERSIONS: tuple[Version, ...] = ((2, 0),)
#: The versions of the documents a capture (`POST`) reads, named by `GS1-EPCIS-Version`.
CAPTURE_VERSIONS: tuple[Version, ...] = ((2, 0),)
CBV_VERSIONS: tuple[Version, ...] = ((2, 0),)


class NotAcceptable(Exception):
    """The request asks for a media type, version or format this repository cannot serve."""


@dataclass(frozen=True)
class Negotiated:
    """What an answer is to be: its media type and the forms of its EPCs and CBV values."""

    media_type: str = JSON_MEDIA_TYPES[0]
    epc_format: EpcFormat = DEFAULT_EPC_FORMAT
    cbv_xml_format: CbvXmlFormat = CbvXmlFormat.NO_PREFERENCE


NEGOTIATED = web.RequestKey("epcis_negotiated", Negotiated)


def negotiated(request: web.Request) -> Negotiated:
    """What the request's answer is to be (the defaults when never negotiated)."""
    return request.get(NEGOTIATED) or Negotiated()


def served_media_types(request: web.Request) -> tuple[str, ...]:
    """The media types the request's route answers in (a subscribing `POST`: delivers
    in), the preferred first."""
    if _subscribes(request) or _route(request) in _QUERY_DOCUMENT_ROUTES:
        return JSON_MEDIA_TYPES + XML_MEDIA_TYPES
    return JSON_MEDIA_TYPES


def _route(request: web.Request) -> str | None:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else None


def _subscribes(request: web.Request) -> bool:
    """Whether the request makes a webhook subscription."""
    return request.method == "POST" and _route(request) in _SUBSCRIBING_ROUTES


def preferred_media_type(accept: str | None, served: Sequence[str]) -> str | None:
    """The served type an `Accept` header rates highest (ties: the earlier served), or
    None when it rates every one 0. No header accepts the first."""
    if accept is None or not accept.strip():
        return served[0]
    ranges: list[tuple[str, float]] = []
    for part in accept.split(","):
        media, *parameters = part.split(";")
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 1.0  # an unreadable weight is no reason to refuse
        if media.strip():
            ranges.append((media.strip().lower(), quality))
    best, best_quality = None, 0.0
    for media_type in served:
        quality = _quality(media_type, ranges)
        if quality > best_quality:
            best, best_quality = media_type, quality
    return best


#: The forms of an EPCIS exception (RFC 7807 problem details), JSON first: JSON unless
#: the caller's `Accept` rates an XML form higher.
_PROBLEM_JSON = ("application/problem+json", *JSON_MEDIA_TYPES)
_PROBLEM_XML = ("application/problem+xml", *XML_MEDIA_TYPES)


def prefers_problem_xml(request: web.Request) -> bool:
    """Whether the request's errors are to be problem XML: its `Accept` rates an XML type
    higher than every JSON one (binding: errors of XML callers are `application/problem+xml`).
    Weighed on every route and method, whatever the route answers on success."""
    chosen = preferred_media_type(request.headers.get("Accept"), _PROBLEM_JSON + _PROBLEM_XML)
    return chosen in _PROBLEM_XML


def _quality(media_type: str, ranges: list[tuple[str, float]]) -> float:
    """The weight of the most specific range that matches `media_type` (RFC 9110 §12.5.1)."""
    family = media_type.split("/")[0] + "/*"
    matches = [
        (3 if media == media_type else 2 if media == family else 1, quality)
        for media, quality in ranges
        if media in (media_type, family, "*/*")
    ]
    return max(matches)[1] if matches else 0.0


def _version(header: str, value: str) -> Version:
    parts = value.strip().split(".")
    if not all(part.isascii() and part.isdigit() for part in parts):
        raise NotAcceptable(f"{header} {value.strip()!a} is not a version number such as 2.0.0")
    numbers = [int(part) for part in parts] + [0]
    return numbers[0], numbers[1]


def check_versions(request: web.Request, family: str, served: tuple[Version, ...]) -> None:
    """Refuse a `GS1-<family>-Version`, or a `-Min`/`-Max` range, that names no version
    in `served`."""
    shown = ", ".join(f"{major}.{minor}.x" for major, minor in served)
    exact = request.headers.get(f"GS1-{family}-Version")
    if exact is not None and _version(f"GS1-{family}-Version", exact) not in served:
        raise NotAcceptable(
            f"GS1-{family}-Version {exact.strip()} is not served; this repository serves {shown}"
        )
    low, high = request.headers.get(f"GS1-{family}-Min"), request.headers.get(f"GS1-{family}-Max")
    lowest = _version(f"GS1-{family}-Min", low) if low is not None else (0, 0)
    highest = _version(f"GS1-{family}-Max", high) if high is not None else (1 << 31, 0)
    if not any(lowest <= version <= highest for version in served):
        raise NotAcceptable(
            f"GS1-{family}-Min/-Max exclude every version served; this repository serves {shown}"
        )


def negotiate(request: web.Request) -> Negotiated:
    """What the request's answer is to be; raises NotAcceptable for what cannot be served.

    `Accept` is weighed on GET, and on the `POST` that makes a webhook subscription (it
    names the form of the deliveries): other methods answer with a status or a small JSON
    body whatever is asked, and their requests state the version of what they send.
    """
    writes = request.method == "POST"
    check_versions(request, "EPCIS", CAPTURE_VERSIONS if writes else ANSWER_VERSIONS)
    check_versions(request, "CBV", CBV_VERSIONS)
    try:
        epc_format = parse_epc_format(request.headers.get("GS1-EPC-Format"))
        cbv_format = parse_cbv_xml_format(request.headers.get("GS1-CBV-XML-Format"))
    except (UnknownEpcFormat, UnknownCbvFormat) as exc:
        raise NotAcceptable(str(exc)) from exc
    served = served_media_types(request)
    subscribes = _subscribes(request)
    if request.method not in ("GET", "HEAD") and not subscribes:
        return Negotiated(served[0], epc_format, cbv_format)
    media_type = preferred_media_type(request.headers.get("Accept"), served)
    if media_type is None:
        subject, verb = ("a subscription", "delivers") if subscribes else (request.path, "answers")
        raise NotAcceptable(
            f"Accept {request.headers.get('Accept', '').strip()!a} names no media type"
            f" {subject} {verb} in; it {verb} in {', '.join(served)}"
        )
    return Negotiated(media_type, epc_format, cbv_format)


@web.middleware
async def epcis_negotiation(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Negotiate every EPCIS request a route serves (an unknown path stays a 404, a wrong
    method a 405). `OPTIONS` is discovery: it says what is served, whatever is asked."""
    routed = request.match_info.http_exception is None
    if is_epcis(request) and routed and request.method != "OPTIONS":
        request[NEGOTIATED] = negotiate(request)
    return await handler(request)
