"""The EPCIS API's error table: the most specific type of a failure decides its answer."""

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from api.epcis.errors import ERROR_HEADERS, epcis_error
from api.platform.middleware import errors
from application.access.event_scope import AuthenticationRequired
from application.epcis.named_queries import UnknownQuery
from application.service.errors import Forbidden, NotFound, ServiceUnavailable


def _answer(exc: Exception, **headers: str) -> tuple[int, dict[str, object], dict[str, str]]:
    request = make_mocked_request("GET", "/v2/epcis/events")
    if headers:
        request[ERROR_HEADERS] = headers
    response = epcis_error(request, exc)
    assert response is not None
    assert response.body is not None
    return response.status, orjson.loads(bytes(response.body)), dict(response.headers)


@pytest.mark.parametrize(
    ("failure", "status", "exception"),
    [
        (UnknownQuery("No query named 'q'"), 404, "NoSuchNameException"),
        (NotFound("No subscription 's'"), 404, "NoSuchResourceException"),
        (AuthenticationRequired("Authentication required"), 401, "SecurityException"),
        (Forbidden("no"), 403, "SecurityException"),
    ],
)
def test_a_subclass_is_answered_by_its_own_row_not_its_base(
    failure: Exception, status: int, exception: str
) -> None:
    answered, body, _ = _answer(failure)
    assert (answered, body["type"], body["detail"]) == (
        status,
        f"epcisException:{exception}",
        str(failure),
    )


def test_a_401_carries_the_bearer_challenge() -> None:
    _, _, headers = _answer(AuthenticationRequired("Authentication required"))
    assert headers["WWW-Authenticate"] == 'Bearer realm="tracepoint"'


def test_route_headers_ride_on_every_error_of_the_route() -> None:
    _, _, headers = _answer(NotFound("x"), **{"GS1-EPCIS-Capture-Limit": "10"})
    assert headers["GS1-EPCIS-Capture-Limit"] == "10"
    assert headers["GS1-EPCIS-Version"] == "2.0.0"


def test_a_failure_the_table_does_not_know_is_left_to_the_caller() -> None:
    request = make_mocked_request("GET", "/v2/epcis/events")
    assert epcis_error(request, RuntimeError("boom")) is None


async def test_a_platform_failure_the_table_does_not_name_keeps_its_status() -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        raise ServiceUnavailable("Writes keep colliding")

    response = await errors(make_mocked_request("POST", "/v2/epcis/queries"), handler)
    assert response.status == 503
