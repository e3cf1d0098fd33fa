"""Publish Lot (spec §1 rule 5): a lot becomes one EPCIS commissioning event."""

from typing import Any

from application.service.runtime import Tracepoint
from tests.access.helpers import Client, call, ok, user_with
from tests.conftest import AS_CAPTURED
from tests.items.past_records import stored_change

GTIN = "09506000134352"


async def events(client: Client, **params: str) -> list[dict[str, Any]]:
    response = await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
    body = await response.json()
    found: list[dict[str, Any]] = body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]
    return found


async def a_lot(client: Client, prefix: str | None = "9506000", **values: Any) -> dict[str, Any]:
    maker = await ok(
        client,
        "POST",
        "/items/organisation",
        {"organisation_name": "Maker", "organisation_company_prefix": prefix},
    )
    product = await ok(
        client, "POST", "/items/product", {"gtin": GTIN, "product_manufacturer": maker["id"]}
    )
    site = await ok(
        client, "POST", "/items/location", {"gln": "9506000134369", "use_gs1_identifiers": True}
    )
    lot: dict[str, Any] = await ok(
        client,
        "POST",
        "/items/lot",
        {
            "product": product["id"],
            "lot_number": "L1",
            "quantity": "120.5",
            "uom": "KGM",
            "expiry_date": "2027-01-31",
            "production_location": site["id"],
            **values,
        },
    )
    return lot


def publish_path(lot: dict[str, Any]) -> str:
    return "/items/lot/" + lot["id"].replace("/", "%2F") + "/publish"


async def test_creating_a_lot_makes_no_event(client: Client) -> None:
    await a_lot(client)
    assert await events(client) == []


async def test_publishing_a_lot_captures_its_commissioning_event(client: Client) -> None:
    lot = await a_lot(client)
    published = await ok(client, "POST", publish_path(lot))
    assert published["created"] is True
    [event] = await events(client)
    assert event["eventID"] == published["eventID"]
    assert (event["type"], event["action"], event["bizStep"]) == (
        "ObjectEvent",
        "ADD",
        "commissioning",
    )
    assert event["quantityList"] == [
        {"epcClass": "urn:epc:class:lgtin:9506000.013435.L1", "quantity": 120.5, "uom": "KGM"}
    ]
    assert event["ilmd"]["cbvmda:itemExpirationDate"] == "2027-01-31"
    assert event["bizLocation"]["id"] == event["readPoint"]["id"]
    assert event["bizLocation"]["id"].endswith("/414/9506000134369")
    read = await ok(client, "GET", "/items/lot/" + lot["id"].replace("/", "%2F"))
    assert read["status"] == "published"


async def test_publishing_twice_makes_no_second_event(client: Client) -> None:
    lot = await a_lot(client)
    await ok(client, "POST", publish_path(lot))
    again = await ok(client, "POST", publish_path(lot))
    assert again["created"] is False
    assert len(await events(client)) == 1


async def test_without_a_company_prefix_the_class_is_the_lots_digital_link(client: Client) -> None:
    lot = await a_lot(client, prefix=None)
    await ok(client, "POST", publish_path(lot))
    [event] = await events(client)
    assert event["quantityList"][0]["epcClass"] == f"https://id.gs1.org/01/{GTIN}/10/L1"


async def test_a_lot_without_a_lot_number_cannot_be_published(client: Client) -> None:
    lot = await a_lot(client, lot_number=None, use_gs1_identifiers=False)
    status, body = await call(client, "POST", publish_path(lot))
    assert status == 400
    assert "lot_number" in body["errors"][0]["message"]
    assert await events(client) == []


async def test_publishing_needs_update_permission_on_the_lot(client: Client) -> None:
    lot = await a_lot(client)
    reader = await user_with(client, {"collection": "lot", "action": "read", "fields": ["*"]})
    status, _ = await call(client, "POST", publish_path(lot), token=reader.token)
    assert status == 403
    assert await events(client) == []


async def test_a_lot_whose_event_would_be_invalid_is_a_400_and_captures_nothing(
    client: Client, tracepoint: Tracepoint
) -> None:
    lot = await a_lot(client)
    # A unit that is no Recommendation 20 code, kept from before units were checked.
    await stored_change(tracepoint, "lot", lot["id"], {"uom": "kilograms"})
    status, body = await call(client, "POST", publish_path(lot))
    assert status == 400
    assert "uom" in body["errors"][0]["message"]
    assert await events(client) == []
