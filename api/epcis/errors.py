"""The EPCIS API's errors in one place: which EPCIS 2.0 exception each failure is.

Use cases raise their own types; handlers let them pass; the `errors` middleware turns
them into exception JSON here. A handler adds route-specific headers (the capture limits)
by setting `ERROR_HEADERS` on the request before it does the work.
"""

from aiohttp import web

from api.epcis.documents import DocumentRejected, located
from api.epcis.negotiation import NotAcceptable
from api.epcis.responses import epcis_exception, invalid_document
from application.access.event_scope import AuthenticationRequired
from application.epcis.capture_outcomes import (
    CaptureLimitExceeded,
    EventIdConflict,
    InvalidDocument,
)
from application.epcis.event_queries import QueryTooLarge
from application.epcis.named_queries import UnknownQuery
from application.epcis.page_tokens import InvalidPageToken
from application.service.errors import (
    AlreadyExists,
    DatabaseUnavailable,
    Forbidden,
    InvalidRequest,
    NotFound,
    PlatformError,
)
from domain.epcis.event_query import QueryParameterError
from domain.epcis.subscriptions import SubscriptionControlsError

#: Headers a route adds to every error it answers (e.g. the capture limits).
ERROR_HEADERS: web.RequestKey[dict[str, str]] = web.RequestKey("epcis_error_headers")

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="tracepoint"'}


class InvalidStaticToken(Exception):
    """The request's bearer token is missing its value or is not a static token."""


#: Failure type → (status, EPCIS exception, extra headers). The most specific type of an
#: error's class hierarchy decides.
EXCEPTIONS: dict[type[Exception], tuple[int, str, dict[str, str]]] = {
    InvalidStaticToken: (401, "SecurityException", CHALLENGE),
    AuthenticationRequired: (401, "SecurityException", CHALLENGE),
    Forbidden: (403, "SecurityException", {}),
    NotAcceptable: (406, "NotAcceptableException", {}),
    UnknownQuery: (404, "NoSuchNameException", {}),
    NotFound: (404, "NoSuchResourceException", {}),
    AlreadyExists: (409, "ResourceAlreadyExistsException", {}),
    InvalidRequest: (400, "QueryValidationException", {}),
    QueryParameterError: (400, "QueryParameterException", {}),
    InvalidPageToken: (400, "QueryParameterException", {}),
    SubscriptionControlsError: (400, "SubscriptionControlsException", {}),
    CaptureLimitExceeded: (413, "CaptureLimitExceededException", {}),
    EventIdConflict: (409, "ResourceAlreadyExistsException", {}),
    QueryTooLarge: (413, "QueryTooLargeException", {}),
    # EPCIS 2.0 names no exception for a service that is down for a while; its catch-all
    # is ImplementationException, and 503 with Retry-After says it is temporary.
    DatabaseUnavailable: (
        503,
        "ImplementationException",
        {"Retry-After": str(DatabaseUnavailable.retry_after)},
    ),
}


def epcis_error(request: web.Request, exc: Exception) -> web.Response | None:
    """The EPCIS answer to a failure, or None when it is not one the API knows."""
    headers = request.get(ERROR_HEADERS, {})
    if isinstance(exc, DocumentRejected):
        return exc.response
    if isinstance(exc, InvalidDocument):
        return invalid_document(located(request, exc.violations))
    for kind in type(exc).__mro__:
        if kind in EXCEPTIONS:
            status, exception, extra = EXCEPTIONS[kind]
            detail = exc.message if isinstance(exc, PlatformError) else str(exc)
            return epcis_exception(status, exception, detail, {**headers, **extra})
    return None
