"""`/v1/products` and `/v1/suppliers` (spec §4.7): pages, sort, search, camelCase."""

from typing import Any

from tests.access.helpers import Client, call, code, ok, user_with


async def products(client: Client, **params: str) -> Any:
    status, body = await call(client, "GET", "/v1/products", params=params)
    assert status == 200, body
    return body


async def make_products(client: Client, count: int) -> None:
    await ok(
        client,
        "POST",
        "/items/product",
        [
            {"product_name": f"Product {n:02d}", "color": "red" if n % 2 else "blue"}
            for n in range(count)
        ],
    )


async def test_the_first_page_holds_fifty_by_default(client: Client) -> None:
    await make_products(client, 55)
    body = await products(client)
    assert len(body["products"]) == 50
    assert body["pagination"] == {"page": 1, "perPage": 50, "total": 55, "totalPages": 2}


async def test_a_later_page_holds_the_rest(client: Client) -> None:
    await make_products(client, 55)
    body = await products(client, page="2")
    assert len(body["products"]) == 5
    assert body["pagination"]["page"] == 2


async def test_a_page_past_the_end_is_empty(client: Client) -> None:
    await make_products(client, 3)
    body = await products(client, page="9")
    assert body["products"] == []
    assert body["pagination"]["total"] == 3


async def test_pages_never_overlap(client: Client) -> None:
    await make_products(client, 7)
    seen = []
    for page in ("1", "2", "3"):
        seen += [p["id"] for p in (await products(client, page=page, per_page="3"))["products"]]
    assert len(seen) == len(set(seen)) == 7


async def test_per_page_above_two_hundred_is_refused(client: Client) -> None:
    status, body = await call(client, "GET", "/v1/products", params={"per_page": "201"})
    assert status == 400
    assert code(body) == "INVALID_QUERY"
    assert (await products(client, per_page="200"))["pagination"]["perPage"] == 200


async def test_a_page_below_one_is_refused(client: Client) -> None:
    for page in ("0", "-1", "x", "1.5"):
        status, _ = await call(client, "GET", "/v1/products", params={"page": page})
        assert status == 400, page


async def test_fields_are_camel_case_with_audit_fields_renamed(client: Client) -> None:
    await make_products(client, 1)
    product = (await products(client))["products"][0]
    assert product["productName"] == "Product 00"
    assert "createdAt" in product
    assert "createdBy" in product
    assert "product_name" not in product


async def test_sort_by_name_ascending_and_descending(client: Client) -> None:
    await make_products(client, 3)
    up = [p["productName"] for p in (await products(client, sort="name"))["products"]]
    down = [p["productName"] for p in (await products(client, sort="-name"))["products"]]
    assert up == ["Product 00", "Product 01", "Product 02"]
    assert down == list(reversed(up))


async def test_the_default_sort_is_creation_time(client: Client) -> None:
    for name in ("b", "a", "c"):
        await ok(client, "POST", "/items/product", {"product_name": name})
    names = [p["productName"] for p in (await products(client))["products"]]
    assert names == ["b", "a", "c"]


async def test_sort_on_an_undocumented_field_is_refused(client: Client) -> None:
    status, body = await call(client, "GET", "/v1/products", params={"sort": "secret"})
    assert status == 400
    assert "productName" in body["errors"][0]["message"]


async def test_search_looks_through_the_text_fields(client: Client) -> None:
    await ok(
        client,
        "POST",
        "/items/product",
        [
            {"product_name": "Oat drink", "functional_name": "Beverage"},
            {"product_name": "Rye bread", "gtin": "09506000134352"},
        ],
    )
    found = await products(client, search="beverage")
    assert [p["productName"] for p in found["products"]] == ["Oat drink"]
    assert found["pagination"]["total"] == 1
    by_gtin = await products(client, search="0950600013")
    assert [p["productName"] for p in by_gtin["products"]] == ["Rye bread"]


async def test_the_list_keeps_the_callers_permissions(client: Client) -> None:
    user = await user_with(client, {"collection": "location", "action": "read", "fields": ["*"]})
    status, _ = await call(client, "GET", "/v1/products", token=user.token)
    assert status == 403


async def test_suppliers_are_the_organisations_with_the_supplier_role(client: Client) -> None:
    await ok(
        client,
        "POST",
        "/items/organisation",
        [
            {"organisation_name": "Grain Co", "organisation_role": ["SUPPLIER", "FARM"]},
            {"organisation_name": "Shop", "organisation_role": ["RETAILER"]},
            {"organisation_name": "Not quite", "organisation_role": ["NON_SUPPLIER"]},
            {"organisation_name": "Nobody"},
        ],
    )
    status, body = await call(client, "GET", "/v1/suppliers")
    assert status == 200
    assert [s["organisationName"] for s in body["suppliers"]] == ["Grain Co"]
    assert body["pagination"]["total"] == 1


async def test_a_role_list_can_be_filtered_by_element(client: Client) -> None:
    await ok(
        client,
        "POST",
        "/items/location",
        [
            {"location_name": "Farm", "location_role": ["FARM"]},
            {"location_name": "Shop", "location_role": ["STORE"]},
        ],
    )
    found = await ok(
        client,
        "GET",
        "/items/location",
        params={"filter[location_role][_contains]": "FARM", "fields": "location_name"},
    )
    assert found == [{"location_name": "Farm"}]
    others = await ok(
        client,
        "GET",
        "/items/location",
        params={"filter[location_role][_ncontains]": "FARM", "fields": "location_name"},
    )
    assert others == [{"location_name": "Shop"}]
