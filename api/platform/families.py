"""Which API family a request belongs to: the EPCIS API is everything under `/v2/epcis`."""

from aiohttp import web

EPCIS_PREFIX = "/v2/epcis"


def is_epcis(request: web.Request) -> bool:
    """Whether the request is the EPCIS API's (its errors and sign-in differ)."""
    return request.path == EPCIS_PREFIX or request.path.startswith(EPCIS_PREFIX + "/")
