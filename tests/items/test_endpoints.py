"""`/items/<collection>`: the generic endpoints of the item collections, as the admin."""

from tests.access.helpers import Client, call, code, ok
from tests.conftest import AUTH


async def test_an_organisation_is_created_and_read_back_at_its_key(client: Client) -> None:
    created = await ok(client, "POST", "/items/organisation", {"organisation_name": "Acme"})
    assert created["organisation_name"] == "Acme"
    assert await ok(client, "GET", f"/items/organisation/{created['id']}") == created


async def test_an_unknown_collection_is_forbidden(client: Client) -> None:
    status, body = await call(client, "GET", "/items/nothing_here")
    assert status == 403
    assert code(body) == "FORBIDDEN"


async def test_system_collections_are_not_served_under_items(client: Client) -> None:
    status, _ = await call(client, "GET", "/items/users")
    assert status == 403


async def test_audit_fields_are_set_by_the_service(client: Client) -> None:
    created = await ok(client, "POST", "/items/certification", {"certification_type": "ORGANIC"})
    assert created["user_created"] is not None
    assert created["date_created"].endswith("Z")
    assert created["user_updated"] is None
    updated = await ok(
        client, "PATCH", f"/items/certification/{created['id']}", {"certification_value": "EU"}
    )
    assert updated["user_updated"] == created["user_created"]
    assert updated["date_updated"] >= created["date_created"]


async def test_audit_fields_cannot_be_written(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/certification", {"date_created": "2020-01-01T00:00:00Z"}
    )
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"


async def test_a_value_outside_an_enumeration_names_the_allowed_values(client: Client) -> None:
    status, body = await call(client, "POST", "/items/shipment_notice", {"status": "lost"})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"
    message = body["errors"][0]["message"]
    assert '"status"' in message
    assert "draft, shipped, delivered, superseded, cancelled" in message


async def test_a_list_of_roles_is_checked_element_by_element(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/location", {"location_role": ["FARM", "MOON"]}
    )
    assert status == 400
    assert '"MOON"' in body["errors"][0]["message"]
    assert "STORAGE_LOCATION" in body["errors"][0]["message"]
    location = await ok(client, "POST", "/items/location", {"location_role": ["FARM", "STORE"]})
    assert location["location_role"] == ["FARM", "STORE"]


async def test_an_unknown_field_is_refused(client: Client) -> None:
    status, body = await call(client, "POST", "/items/product", {"colour_code": "red"})
    assert status == 400
    assert '"colour_code"' in body["errors"][0]["message"]


async def test_a_value_of_the_wrong_type_is_refused(client: Client) -> None:
    status, body = await call(client, "POST", "/items/product", {"net_weight": "heavy"})
    assert status == 400
    assert '"net_weight" must be a number' in body["errors"][0]["message"]


async def test_a_date_field_takes_only_a_calendar_date(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/certification", {"certification_end_date": "2026-02-30"}
    )
    assert status == 400
    assert "YYYY-MM-DD" in body["errors"][0]["message"]
    made = await ok(
        client, "POST", "/items/certification", {"certification_end_date": "2026-02-28"}
    )
    assert made["certification_end_date"] == "2026-02-28"


async def test_a_number_outside_its_bounds_is_refused(client: Client) -> None:
    status, body = await call(client, "POST", "/items/location", {"latitude": 91})
    assert status == 400
    assert '"latitude" must be at most 90' in body["errors"][0]["message"]


async def test_a_relation_to_a_missing_item_is_refused(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/product", {"product_manufacturer": "no-such-organisation"}
    )
    assert status == 400
    assert code(body) == "INVALID_FOREIGN_KEY"
    assert body["errors"][0]["extensions"]["field"] == "product_manufacturer"


async def test_a_lot_quantity_may_be_written_as_decimal_text(client: Client) -> None:
    lot = await ok(client, "POST", "/items/lot", {"lot_number": "L1", "quantity": "12.50"})
    assert lot["quantity"] == 12.5
    status, body = await call(client, "POST", "/items/lot", {"quantity": "twelve"})
    assert status == 400
    assert '"quantity"' in body["errors"][0]["message"]


async def test_relational_fields_are_read_through_the_relation(client: Client) -> None:
    maker = await ok(client, "POST", "/items/organisation", {"organisation_name": "Acme"})
    await ok(
        client,
        "POST",
        "/items/product",
        {"product_name": "Anvil", "product_manufacturer": maker["id"]},
    )
    products = await ok(
        client,
        "GET",
        "/items/product",
        params={"fields": "product_name,product_manufacturer.organisation_name"},
    )
    assert products == [
        {"product_name": "Anvil", "product_manufacturer": {"organisation_name": "Acme"}}
    ]


async def test_a_relational_filter_selects_by_the_related_item(client: Client) -> None:
    acme = await ok(client, "POST", "/items/organisation", {"organisation_name": "Acme"})
    other = await ok(client, "POST", "/items/organisation", {"organisation_name": "Other"})
    await ok(
        client,
        "POST",
        "/items/product",
        [
            {"product_name": "Anvil", "product_manufacturer": acme["id"]},
            {"product_name": "Rope", "product_manufacturer": other["id"]},
        ],
    )
    found = await ok(
        client,
        "GET",
        "/items/product",
        params={
            "filter[product_manufacturer][organisation_name][_eq]": "Acme",
            "fields": "product_name",
        },
    )
    assert found == [{"product_name": "Anvil"}]


async def test_line_items_are_created_updated_and_deleted_with_their_notice(client: Client) -> None:
    notice = await ok(
        client,
        "POST",
        "/items/shipment_notice",
        {"ship_notice_number": "ASN-1", "line_items": [{"package_id": "P1"}, {"package_id": "P2"}]},
        params={"fields": "*,line_items.*"},
    )
    first, second = sorted(notice["line_items"], key=lambda item: item["package_id"])
    assert first["user_created"] is not None
    changed = await ok(
        client,
        "PATCH",
        f"/items/shipment_notice/{notice['id']}",
        {
            "line_items": {
                "create": [{"package_id": "P3"}],
                "update": [{"id": first["id"], "quantity_shipped": 4}],
                "delete": [second["id"]],
            }
        },
        params={"fields": "line_items.package_id,line_items.quantity_shipped"},
    )
    assert sorted(
        (item["package_id"], item["quantity_shipped"]) for item in changed["line_items"]
    ) == [("P1", 4), ("P3", None)]
    status, _ = await call(client, "GET", f"/items/shipment_notice_line_item/{second['id']}")
    assert status == 403


async def test_deleting_a_notice_deletes_its_line_items(client: Client) -> None:
    notice = await ok(
        client,
        "POST",
        "/items/shipment_notice",
        {"line_items": [{"package_id": "P1"}]},
        params={"fields": "id,line_items.id"},
    )
    await ok(client, "DELETE", f"/items/shipment_notice/{notice['id']}")
    status, _ = await call(
        client, "GET", f"/items/shipment_notice_line_item/{notice['line_items'][0]['id']}"
    )
    assert status == 403


async def test_translations_are_written_with_their_item(client: Client) -> None:
    location = await ok(
        client,
        "POST",
        "/items/location",
        {
            "location_name": "Plant",
            "translations": [
                {"languages_code": "en-US", "location_description": "Our plant"},
                {"languages_code": "fr-FR", "location_description": "Notre usine"},
            ],
        },
        params={"fields": "translations.languages_code,translations.location_description"},
    )
    assert sorted(t["languages_code"] for t in location["translations"]) == ["en-US", "fr-FR"]


async def test_certifications_link_items_both_ways_through_a_junction(client: Client) -> None:
    organic = await ok(client, "POST", "/items/certification", {"certification_type": "ORGANIC"})
    product = await ok(
        client,
        "POST",
        "/items/product",
        {"product_name": "Oats", "certifications": [{"certification_id": organic["id"]}]},
        params={"fields": "id,certifications.certification_id.certification_type"},
    )
    assert product["certifications"] == [{"certification_id": {"certification_type": "ORGANIC"}}]
    covered = await ok(
        client,
        "GET",
        f"/items/certification/{organic['id']}",
        params={"fields": "covered_products.product_id.product_name"},
    )
    assert covered["covered_products"] == [{"product_id": {"product_name": "Oats"}}]


async def test_deleting_a_certification_unlinks_what_it_covered(client: Client) -> None:
    organic = await ok(client, "POST", "/items/certification", {})
    product = await ok(
        client, "POST", "/items/product", {"certifications": [{"certification_id": organic["id"]}]}
    )
    await ok(client, "DELETE", f"/items/certification/{organic['id']}")
    read = await ok(
        client, "GET", f"/items/product/{product['id']}", params={"fields": "certifications"}
    )
    assert read["certifications"] == []


async def test_a_linked_certification_must_exist(client: Client) -> None:
    status, _ = await call(
        client,
        "POST",
        "/items/product",
        {"certifications": [{"certification_id": "6f9619ff-8b86-d011-b42d-00c04fc964ff"}]},
    )
    assert status == 400


async def test_batch_create_update_and_delete_work_on_items(client: Client) -> None:
    made = await ok(
        client,
        "POST",
        "/items/certification",
        [{"certification_type": "A"}, {"certification_type": "B"}],
    )
    keys = [m["id"] for m in made]
    updated = await ok(
        client,
        "PATCH",
        "/items/certification",
        {"keys": keys, "data": {"certification_status": "ACTIVE"}},
    )
    assert {u["certification_status"] for u in updated} == {"ACTIVE"}
    status, body = await call(
        client,
        "SEARCH",
        "/items/certification",
        {"query": {"filter": {"certification_type": {"_eq": "B"}}}},
    )
    assert status == 200
    assert [c["id"] for c in body["data"]] == [keys[1]]
    await ok(client, "DELETE", "/items/certification", keys)
    assert await ok(client, "GET", "/items/certification") == []


async def test_a_failing_batch_creates_nothing(client: Client) -> None:
    status, _ = await call(
        client, "POST", "/items/shipment_notice", [{"ship_notice_number": "A"}, {"status": "lost"}]
    )
    assert status == 400
    assert await ok(client, "GET", "/items/shipment_notice") == []


async def test_a_new_shipment_notice_gets_a_urn(client: Client) -> None:
    notice = await ok(client, "POST", "/items/shipment_notice", {"ship_notice_number": "ASN-7"})
    assert notice["urn"] == f"urn:uuid:{notice['id']}"


async def test_a_notice_issued_by_an_organisation_with_a_pgln_gets_a_cbv_urn(
    client: Client,
) -> None:
    issuer = await ok(client, "POST", "/items/organisation", {"pgln": "9506000134352"})
    notice = await ok(
        client,
        "POST",
        "/items/shipment_notice",
        {"ship_notice_number": "ASN 7", "ship_notice_issuer": issuer["id"]},
    )
    assert notice["urn"] == "urn:epcglobal:cbv:bt:9506000134352:ASN%207"


async def test_two_notices_cannot_share_a_urn(client: Client) -> None:
    await ok(client, "POST", "/items/shipment_notice", {"urn": "urn:uuid:1"})
    status, body = await call(client, "POST", "/items/shipment_notice", {"urn": "urn:uuid:1"})
    assert status == 400
    assert code(body) == "RECORD_NOT_UNIQUE"


async def test_a_time_zone_must_be_known(client: Client) -> None:
    status, body = await call(client, "POST", "/items/location", {"timezone": "Mars/Olympus"})
    assert status == 400
    assert '"timezone"' in body["errors"][0]["message"]
    made = await ok(client, "POST", "/items/location", {"timezone": "Europe/Paris"})
    assert made["timezone"] == "Europe/Paris"


async def test_a_date_filter_compares_dates(client: Client) -> None:
    await ok(
        client,
        "POST",
        "/items/lot",
        [
            {"lot_number": "A", "expiry_date": "2026-01-10"},
            {"lot_number": "B", "expiry_date": "2026-03-01"},
        ],
    )
    found = await ok(
        client,
        "GET",
        "/items/lot",
        params={"filter[expiry_date][_lt]": "2026-02-01", "fields": "lot_number"},
    )
    assert found == [{"lot_number": "A"}]


async def test_a_corrupt_gzip_body_is_400_invalid_payload(client: Client) -> None:
    headers = {**AUTH, "Content-Type": "application/json", "Content-Encoding": "gzip"}
    response = await client.post("/items/product", data=b"\x1f\x8b broken", headers=headers)
    assert response.status == 400
    [error] = (await response.json())["errors"]
    assert error["extensions"]["code"] == "INVALID_PAYLOAD"
    assert error["message"].startswith("The request body cannot be read:")
    listed = await client.get("/items/product", headers=AUTH)
    assert (await listed.json())["data"] == []
