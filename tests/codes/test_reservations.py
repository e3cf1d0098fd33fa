"""Code reservations: codes taken atomically, export files, pool refills."""

import asyncio
import csv
import io
import json
import xml.etree.ElementTree as ET
from typing import Any

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, ok
from tests.codes.helpers import GTIN, codes_of, finished_job, product
from tests.conftest import AUTH


async def reserve(tracepoint: Tracepoint, client: Client, **values: Any) -> dict[str, Any]:
    """A reservation after the worker has served it."""
    created = await ok(client, "POST", "/items/code_reservation", values)
    await tracepoint.codes.work.run()
    result: dict[str, Any] = await ok(
        client, "GET", f"/items/code_reservation/{created['id']}", params={"fields": "*,codes.*"}
    )
    return result


async def export_of(client: Client, reservation: dict[str, Any]) -> tuple[str, bytes]:
    """The content type and bytes of a reservation's export file."""
    response = await client.get(f"/assets/{reservation['export_file']}", headers=AUTH)
    assert response.status == 200
    return response.headers["Content-Type"], await response.read()


async def test_a_reservation_takes_unassigned_codes_and_marks_them_reserved(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=30)
    organisation = await ok(client, "POST", "/items/organisation", {"organisation_name": "P"})
    done = await reserve(
        tracepoint, client, product=key, quantity=12, reserved_for=organisation["id"]
    )
    assert done["status"] == "complete"
    assert done["quantity_reserved"] == 12
    assert len(done["codes"]) == 12
    assert {c["status"] for c in done["codes"]} == {"reserved"}
    assert {c["reservation"] for c in done["codes"]} == {done["id"]}
    assert len(await codes_of(client, status="unassigned")) == 18


async def test_a_reservation_without_enough_codes_ends_in_error(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=5)
    done = await reserve(tracepoint, client, product=key, quantity=6)
    assert done["status"] == "error"
    assert "Only 5 unassigned sgtin codes" in done["error_message"]
    assert done["quantity_reserved"] == 0
    assert len(await codes_of(client, status="unassigned")) == 5


async def test_the_csv_export_lists_the_codes_with_the_url_suffix(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=4)
    done = await reserve(tracepoint, client, product=key, quantity=4, url_suffix="?s=1")
    content_type, data = await export_of(client, done)
    assert content_type.startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert sorted(r["id"] for r in rows) == sorted(c["id"] for c in done["codes"])
    assert all(r["digital_link"].endswith("?s=1") for r in rows)
    assert all(r["gtin"] == GTIN for r in rows)


async def test_the_json_export_parses_back_to_the_codes(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=3)
    done = await reserve(tracepoint, client, product=key, quantity=3, export_type="json")
    content_type, data = await export_of(client, done)
    assert content_type.startswith("application/json")
    document = json.loads(data)
    assert document["reservation"] == done["id"]
    assert sorted(c["code"] for c in document["codes"]) == sorted(c["code"] for c in done["codes"])


async def test_the_xml_export_parses_back_to_the_codes(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=3)
    done = await reserve(tracepoint, client, product=key, quantity=3, export_type="xml")
    _, data = await export_of(client, done)
    root = ET.fromstring(data)
    assert sorted(e.findtext("value") for e in root) == sorted(c["code"] for c in done["codes"])


async def test_an_export_type_the_service_cannot_write_is_accepted_at_creation(
    client: Client,
) -> None:
    key = await product(client)
    created = await ok(
        client,
        "POST",
        "/items/code_reservation",
        {"product": key, "quantity": 1, "export_type": "pdf"},
    )
    assert (created["export_type"], created["status"]) == ("pdf", "new")


async def test_a_reservation_of_an_unknown_export_type_fails_naming_the_known_ones(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=3)
    done = await reserve(tracepoint, client, product=key, quantity=3, export_type="pdf")
    assert done["status"] == "error"
    assert '"pdf"' in done["error_message"]
    assert "csv, json, xml" in done["error_message"]
    assert (done["quantity_reserved"], done["export_file"]) == (0, None)
    assert len(await codes_of(client, status="unassigned")) == 3


async def test_two_reservations_at_once_never_share_a_code(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=40)
    made = [
        await ok(client, "POST", "/items/code_reservation", {"product": key, "quantity": 15})
        for _ in range(2)
    ]
    # Each reservation served by its own worker, at the same time.
    await asyncio.gather(*(tracepoint.codes.reservations.run(r["id"]) for r in made))
    await tracepoint.codes.work.run()
    taken: list[str] = []
    for r in made:
        done = await ok(
            client, "GET", f"/items/code_reservation/{r['id']}", params={"fields": "*,codes.id"}
        )
        assert done["status"] == "complete", done
        taken += [c["id"] for c in done["codes"]]
    assert len(taken) == len(set(taken)) == 30


async def test_a_code_set_back_to_unassigned_leaves_its_reservation(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=2)
    done = await reserve(tracepoint, client, product=key, quantity=1)
    [one] = done["codes"]
    back = await ok(client, "PATCH", f"/items/unique_code/{one['id']}", {"status": "unassigned"})
    assert back["reservation"] is None
