"""Making products, jobs and reservations in code tests, and running the worker."""

from typing import Any

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, ok

GTIN = "09506000134352"


async def product(client: Client, gtin: str = GTIN, **values: Any) -> str:
    """A product with this GTIN; its key."""
    created = await ok(client, "POST", "/items/product", {"gtin": gtin, **values})
    return str(created["id"])


async def job(client: Client, **values: Any) -> dict[str, Any]:
    """An identifier job as created (status new)."""
    result: dict[str, Any] = await ok(client, "POST", "/items/identifier_job", values)
    return result


async def finished_job(tracepoint: Tracepoint, client: Client, **values: Any) -> dict[str, Any]:
    """An identifier job after the worker has run it."""
    created = await job(client, **values)
    await tracepoint.codes.work.run()
    result: dict[str, Any] = await ok(client, "GET", f"/items/identifier_job/{created['id']}")
    return result


async def codes_of(client: Client, **filters: Any) -> list[dict[str, Any]]:
    """Every code matching `field=value` filters, oldest first."""
    params = {"limit": "-1", "sort": "date_created"}
    for name, value in filters.items():
        params[f"filter[{name}][_eq]"] = str(value)
    result: list[dict[str, Any]] = await ok(client, "GET", "/items/unique_code", params=params)
    return result
