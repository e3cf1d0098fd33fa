"""The reference lists (ref_country, ref_uom, ref_packaging_type_codes) and brands, and
the master-data fields that point at them."""

from typing import Any

import pycountry

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, code, ok, user_with
from tests.items.past_records import stored_change, stored_record

FRANCE = {"code": "FR", "name": "France", "alpha_3": "FRA", "numeric": "250"}


async def test_a_country_is_read_by_its_alpha_2_code(client: Client) -> None:
    country = await ok(client, "GET", "/items/ref_country/FR")
    assert {k: country[k] for k in FRANCE} == FRANCE
    assert country["official_name"] == "French Republic"


async def test_the_country_list_is_iso_3166_1_whole(client: Client) -> None:
    status, body = await call(
        client, "GET", "/items/ref_country", params={"limit": "0", "meta": "total_count"}
    )
    assert status == 200
    assert body["meta"]["total_count"] == len(pycountry.countries) >= 249


async def test_a_unit_is_read_by_its_recommendation_20_code(client: Client) -> None:
    assert (await ok(client, "GET", "/items/ref_uom/KGM"))["name"] == "kilogram"
    assert (await ok(client, "GET", "/items/ref_uom/CEL"))["name"] == "degree Celsius"


async def test_a_packaging_type_is_read_by_its_gs1_code(client: Client) -> None:
    assert await ok(client, "GET", "/items/ref_packaging_type_codes/BX") == {
        "code": "BX",
        "packaging_type_name": "Box",
    }


async def test_reference_lists_take_filter_sort_fields_and_search(client: Client) -> None:
    found = await ok(
        client,
        "GET",
        "/items/ref_country",
        params={
            "filter[alpha_3][_in]": "FRA,DEU,ITA",
            "sort": "-name",
            "fields": "code,name",
        },
    )
    assert found == [
        {"code": "IT", "name": "Italy"},
        {"code": "DE", "name": "Germany"},
        {"code": "FR", "name": "France"},
    ]
    celsius = await ok(client, "GET", "/items/ref_uom", params={"search": "Degree Celsius"})
    assert "CEL" in [unit["code"] for unit in celsius]
    assert all("degree celsius" in unit["name"].lower() for unit in celsius)


async def test_a_reference_list_cannot_be_written(client: Client) -> None:
    for method, path, body in (
        ("POST", "/items/ref_country", {"code": "XK", "name": "Kosovo"}),
        ("PATCH", "/items/ref_uom/KGM", {"name": "kilo"}),
        ("DELETE", "/items/ref_packaging_type_codes/BX", None),
    ):
        status, answer = await call(client, method, path, body)
        assert (status, code(answer)) == (403, "FORBIDDEN"), (method, path)
    assert (await ok(client, "GET", "/items/ref_uom/KGM"))["name"] == "kilogram"


async def test_a_reference_list_is_read_only_with_a_read_permission(client: Client) -> None:
    nobody = await user_with(client, {"collection": "location", "action": "read", "fields": ["*"]})
    status, _ = await call(client, "GET", "/items/ref_country/FR", token=nobody.token)
    assert status == 403
    reader = await user_with(
        client, {"collection": "ref_country", "action": "read", "fields": ["code", "name"]}
    )
    assert await ok(client, "GET", "/items/ref_country/FR", token=reader.token) == {
        "code": "FR",
        "name": "France",
    }


async def test_a_products_codes_expand_into_their_lists(client: Client) -> None:
    product = await ok(
        client,
        "POST",
        "/items/product",
        {
            "product_name": "Oat drink",
            "packaging_type_code": "BRI",
            "net_content": 1,
            "net_content_unit": "LTR",
            "country_of_origin": "SE",
        },
    )
    read = await ok(
        client,
        "GET",
        f"/items/product/{product['id']}",
        params={
            "fields": "packaging_type_code.packaging_type_name,net_content_unit.name,"
            "country_of_origin.code,country_of_origin.name"
        },
    )
    assert read == {
        "packaging_type_code": {"packaging_type_name": "Brick"},
        "net_content_unit": {"name": "litre"},
        "country_of_origin": {"code": "SE", "name": "Sweden"},
    }
    assert (await ok(client, "GET", f"/items/product/{product['id']}"))["net_content_unit"] == (
        "LTR"
    )


async def test_items_are_filtered_and_sorted_by_their_countrys_fields(client: Client) -> None:
    for name, country in (("Lyon", "FR"), ("Oslo", "NO"), ("Graz", "AT")):
        await ok(
            client, "POST", "/items/location", {"location_name": name, "country_code": country}
        )
    found = await ok(
        client,
        "GET",
        "/items/location",
        params={
            "filter[country_code][name][_in]": "France,Austria",
            "sort": "country_code.name",
            "fields": "location_name",
        },
    )
    assert found == [{"location_name": "Graz"}, {"location_name": "Lyon"}]


async def test_an_unknown_code_is_refused_naming_its_field(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/organisation", {"organisation_name": "Acme", "country_code": "XX"}
    )
    assert status == 400
    error = body["errors"][0]
    assert error["message"] == (
        'Invalid foreign key "XX" for field "country_code" in collection "organisation".'
    )
    assert error["extensions"] == {
        "code": "INVALID_FOREIGN_KEY",
        "collection": "organisation",
        "field": "country_code",
    }


async def test_an_unknown_unit_is_refused_on_update(client: Client) -> None:
    product = await ok(
        client, "POST", "/items/product", {"net_weight": 2, "net_weight_unit": "KGM"}
    )
    status, body = await call(
        client, "PATCH", f"/items/product/{product['id']}", {"net_weight_unit": "kg"}
    )
    assert (status, code(body)) == (400, "INVALID_FOREIGN_KEY")
    assert body["errors"][0]["extensions"]["field"] == "net_weight_unit"


async def test_a_lots_unit_must_be_a_recommendation_20_code(client: Client) -> None:
    status, body = await call(client, "POST", "/items/lot", {"lot_number": "L1", "uom": "kilos"})
    assert (status, body["errors"][0]["extensions"]["field"]) == (400, "uom")
    lot = await ok(client, "POST", "/items/lot", {"lot_number": "L2", "uom": "KGM"})
    assert lot["uom"] == "KGM"


async def test_codes_are_matched_exactly(client: Client) -> None:
    status, body = await call(client, "POST", "/items/location", {"country_code": "fr"})
    assert (status, code(body)) == (400, "INVALID_FOREIGN_KEY")


async def test_a_product_names_a_brand_that_exists(client: Client) -> None:
    status, body = await call(client, "POST", "/items/product", {"brand": "Oaty"})
    assert (status, body["errors"][0]["extensions"]["field"]) == (400, "brand")
    brand = await ok(client, "POST", "/items/brand", {"brand_name": "Oaty"})
    assert brand["brand_name"] == "Oaty"
    assert brand["date_created"] is not None
    product = await ok(client, "POST", "/items/product", {"brand": "Oaty"})
    read = await ok(
        client,
        "GET",
        f"/items/product/{product['id']}",
        params={"fields": "brand.brand_name,brand.date_created"},
    )
    assert read["brand"] == {"brand_name": "Oaty", "date_created": brand["date_created"]}


async def test_a_brand_needs_its_name(client: Client) -> None:
    status, body = await call(client, "POST", "/items/brand", {})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")


async def test_deleting_a_brand_clears_it_from_its_products(client: Client) -> None:
    await ok(client, "POST", "/items/brand", {"brand_name": "Gone"})
    product = await ok(client, "POST", "/items/product", {"brand": "Gone"})
    await ok(client, "DELETE", "/items/brand/Gone")
    assert (await ok(client, "GET", f"/items/product/{product['id']}"))["brand"] is None


# -- records stored before the codes were checked -----------------------------------------


async def old_location(client: Client, tracepoint: Tracepoint) -> str:
    """A location whose country is a code no list holds, stored as a past version did."""
    await stored_record(
        tracepoint, "location", {"id": "old-site", "location_name": "Old", "country_code": "ZZ"}
    )
    return "old-site"


async def test_a_record_with_an_unknown_code_reads_with_its_raw_value(
    client: Client, tracepoint: Tracepoint
) -> None:
    key = await old_location(client, tracepoint)
    read = await ok(client, "GET", f"/items/location/{key}")
    assert read["country_code"] == "ZZ"
    expanded = await ok(
        client, "GET", f"/items/location/{key}", params={"fields": "id,country_code.name"}
    )
    assert expanded == {"id": key, "country_code": None}


async def test_a_record_with_an_unknown_code_survives_a_replay(
    client: Client, tracepoint: Tracepoint
) -> None:
    key = await old_location(client, tracepoint)
    product = await ok(client, "POST", "/items/product", {"net_weight_unit": "KGM"})
    await stored_change(tracepoint, "product", product["id"], {"net_weight_unit": "kg"})
    await tracepoint.blocking.run(tracepoint.projections.rebuild)
    assert (await ok(client, "GET", f"/items/location/{key}"))["country_code"] == "ZZ"
    assert (await ok(client, "GET", f"/items/product/{product['id']}"))["net_weight_unit"] == "kg"
    assert (await ok(client, "GET", "/items/ref_country/FR"))["name"] == "France"


async def test_a_record_with_an_unknown_code_takes_changes_of_other_fields(
    client: Client, tracepoint: Tracepoint
) -> None:
    key = await old_location(client, tracepoint)
    changed = await ok(client, "PATCH", f"/items/location/{key}", {"location_name": "Renamed"})
    assert (changed["location_name"], changed["country_code"]) == ("Renamed", "ZZ")
    fixed = await ok(client, "PATCH", f"/items/location/{key}", {"country_code": "GB"})
    assert fixed["country_code"] == "GB"


async def test_filters_on_an_unknown_code_see_no_related_item(
    client: Client, tracepoint: Tracepoint
) -> None:
    await old_location(client, tracepoint)
    params: dict[str, Any] = {"filter[country_code][_null]": "true", "fields": "id"}
    assert await ok(client, "GET", "/items/location", params=params) == []
    params = {"filter[country_code][name][_null]": "true", "fields": "id"}
    assert await ok(client, "GET", "/items/location", params=params) == [{"id": "old-site"}]
