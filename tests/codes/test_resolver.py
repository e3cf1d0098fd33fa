"""The Digital Link resolver: redirects, descriptions, scans and integrity results."""

from typing import Any

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, ok
from tests.codes.helpers import GTIN, codes_of, finished_job, product
from tests.codes.test_reservations import reserve


async def a_code(
    tracepoint: Tracepoint, client: Client, status: str = "assigned", **product_values: Any
) -> dict[str, Any]:
    """One sgtin code of a product with these values, in this status."""
    key = await product(client, **product_values)
    done = await finished_job(tracepoint, client, product=key, quantity=1)
    [one] = await codes_of(client, identifier_job=done["id"])
    if status != "unassigned":
        one = await ok(client, "PATCH", f"/items/unique_code/{one['id']}", {"status": status})
    return one


def path_of(code: dict[str, Any]) -> str:
    return "/" + code["digital_link"].split("/", 3)[3]


async def scan(client: Client, path: str, **headers: str) -> Any:
    """Resolve a path with no token, not following redirects."""
    return await client.get(path, headers=headers, allow_redirects=False)


async def results(client: Client) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await ok(
        client, "GET", "/items/integrity_check_result", params={"sort": "date_created"}
    )
    return found


async def test_a_scan_redirects_to_the_product_page_with_its_query_string(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client, product_redirection_url="https://example.com/p")
    response = await scan(client, path_of(one) + "?utm=label")
    assert response.status == 307
    assert response.headers["Location"] == "https://example.com/p?utm=label"


async def test_the_lot_page_wins_over_the_product_page(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client, product_redirection_url="https://example.com/p")
    await ok(
        client,
        "POST",
        "/items/lot",
        {
            "product": one["product"],
            "lot_number": "L42",
            "lot_redirection_url": "https://example.com/lot42",
        },
    )
    response = await scan(client, f"/01/{GTIN}/10/L42/21/{one['code']}")
    assert response.headers["Location"] == "https://example.com/lot42"


async def test_without_a_page_the_scan_is_described_in_json(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client, product_name="Cheese")
    response = await scan(client, path_of(one))
    assert response.status == 200
    body = await response.json()
    assert body["data"]["gtin"] == GTIN
    assert body["data"]["code"] == one["code"]
    assert body["data"]["product"]["product_name"] == "Cheese"


async def test_a_client_asking_for_json_gets_json_even_with_a_page(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client, product_redirection_url="https://example.com/p")
    response = await scan(client, path_of(one), Accept="application/json")
    assert response.status == 200
    assert (await response.json())["data"]["code"] == one["code"]


async def test_the_description_reveals_no_status_or_reservation(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client)
    body = await (await scan(client, path_of(one))).json()
    assert "status" not in body["data"]
    assert "reservation" not in body["data"]
    assert "user_created" not in body["data"].get("product", {})


async def test_an_unknown_serial_of_our_gtin_is_404_and_recorded_as_unrecognized(
    tracepoint: Tracepoint, client: Client
) -> None:
    await a_code(tracepoint, client)
    response = await scan(client, f"/01/{GTIN}/21/NOSUCHCODE")
    assert response.status == 404
    [result] = await results(client)
    assert result["result"] == "unrecognized"
    assert result["check_source"] == "crowd_sourced"
    assert result["status"] == "new"


async def test_every_scan_is_kept_with_where_it_came_from(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client)
    await scan(client, path_of(one) + "?lat=48.85&lng=2.35", **{"User-Agent": "scanner/1"})
    [kept] = await ok(client, "GET", "/items/code_scan")
    assert kept["code"] == one["id"]
    assert kept["user_agent"] == "scanner/1"
    assert (kept["latitude"], kept["longitude"]) == (48.85, 2.35)
    assert kept["ip"] == "127.0.0.1"


async def test_a_code_not_yet_assigned_is_unactivated(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client, status="unassigned")
    await scan(client, path_of(one))
    [result] = await results(client)
    assert result["result"] == "unactivated"
    assert result["code"] == one["id"]
    assert result["product"] == one["product"]


async def test_an_assigned_code_scanned_once_raises_nothing(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client)
    await scan(client, path_of(one) + "?lat=48.85&lng=2.35")
    assert await results(client) == []


async def test_one_code_scanned_far_apart_in_a_short_time_is_duplicated(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client)
    await scan(client, path_of(one) + "?lat=48.8566&lng=2.3522")  # Paris
    await tracepoint.blocking.run(tracepoint.projections.catch_up)
    await scan(client, path_of(one) + "?lat=51.5074&lng=-0.1278")  # London
    [result] = await results(client)
    assert result["result"] == "duplicated"
    assert "344 km" in result["reason"]
    assert result["object_location"] == {"type": "Point", "coordinates": [-0.1278, 51.5074]}


async def test_a_code_scanned_outside_its_market_is_diverted(
    tracepoint: Tracepoint, client: Client
) -> None:
    key = await product(client)
    await finished_job(tracepoint, client, product=key, quantity=1)
    partner = await ok(
        client, "POST", "/items/organisation", {"organisation_name": "FR", "country_code": "FR"}
    )
    done = await reserve(tracepoint, client, product=key, quantity=1, reserved_for=partner["id"])
    [one] = done["codes"]
    await ok(client, "PATCH", f"/items/unique_code/{one['id']}", {"status": "encoded"})
    await scan(client, path_of(one), **{"CF-IPCountry": "DE"})
    [result] = await results(client)
    assert result["result"] == "diverted"
    assert "Scanned in DE" in result["reason"]
    assert "FR market" in result["reason"]


async def test_bad_coordinates_are_a_400(tracepoint: Tracepoint, client: Client) -> None:
    one = await a_code(tracepoint, client)
    response = await scan(client, path_of(one) + "?lat=north")
    assert response.status == 400
    assert (await response.json())["errors"][0]["extensions"]["code"] == "INVALID_QUERY"


async def test_sscc_grai_and_short_codes_resolve(tracepoint: Tracepoint, client: Client) -> None:
    jobs = [
        {"type": "sscc", "sscc_company_prefix": "0614141", "sscc_extension_digit": 1},
        {"type": "grai", "domain": {"company_prefix": "9521141", "asset_type": "12345"}},
        {"type": "short_code"},
    ]
    for values in jobs:
        done = await finished_job(tracepoint, client, quantity=1, **values)
        [one] = await codes_of(client, identifier_job=done["id"])
        response = await scan(client, path_of(one))
        assert response.status == 200, (values, await response.text())
        assert (await response.json())["data"]["code"] == one["code"]


async def test_a_scan_needs_no_token_but_its_records_do(
    tracepoint: Tracepoint, client: Client
) -> None:
    one = await a_code(tracepoint, client)
    assert (await scan(client, path_of(one))).status == 200
    status, _ = await call(client, "GET", "/items/code_scan", token="")
    assert status == 403
    status, _ = await call(client, "GET", "/items/integrity_check_result", token="")
    assert status == 403


async def test_an_unknown_short_code_is_404_and_not_an_integrity_result(client: Client) -> None:
    response = await scan(client, "/Zq81Ka")
    assert response.status == 404
    assert (await response.json())["errors"][0]["extensions"]["code"] == "ROUTE_NOT_FOUND"
    assert await results(client) == []


async def test_an_unknown_code_of_a_gtin_we_do_not_make_is_only_a_404(client: Client) -> None:
    response = await scan(client, f"/01/{GTIN}/21/NOSUCHCODE")
    assert response.status == 404
    assert await results(client) == []
    assert await ok(client, "GET", "/items/code_scan") == []
