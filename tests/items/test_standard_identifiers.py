"""Standard identifiers (spec §1 rule 6): ids and Digital Links derived from GS1 keys,
and GS1 keys checked wherever they are given."""

from typing import Any

import pytest

from infrastructure.settings import Settings
from tests.access.helpers import Client, call, code, ok
from tests.conftest import make_settings

BASE = "https://id.example.com"


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The service with its own Digital Link base."""
    return make_settings(database_url, digital_link_base=BASE)


def message(body: Any) -> str:
    return str(body["errors"][0]["message"])


async def test_a_product_with_a_gtin_gets_its_gs1_id_and_digital_link(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"gtin": "9506000134352"})
    assert product["id"] == "/01/09506000134352"
    assert product["digital_link"] == BASE + "/01/09506000134352"
    assert product["gtin"] == "9506000134352"


async def test_a_product_without_a_gtin_gets_a_uuid(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "Loose"})
    assert len(product["id"]) == 36
    assert product["digital_link"] is None


async def test_a_product_may_opt_out_and_keep_its_own_id(client: Client) -> None:
    product = await ok(
        client,
        "POST",
        "/items/product",
        {"id": "SKU-1", "gtin": "09506000134352", "use_gs1_identifiers": False},
    )
    assert product["id"] == "SKU-1"


async def test_a_gtin_with_a_bad_check_digit_names_the_expected_one(client: Client) -> None:
    status, body = await call(client, "POST", "/items/product", {"gtin": "09506000134353"})
    assert status == 400
    assert code(body) == "INVALID_PAYLOAD"
    assert "expected 2" in message(body)


@pytest.mark.parametrize("gtin", ["96385074", "036000291452", "4006381333931", "10012345000017"])
async def test_every_gtin_length_is_accepted(client: Client, gtin: str) -> None:
    product = await ok(client, "POST", "/items/product", {"gtin": gtin})
    assert product["id"] == "/01/" + gtin.zfill(14)


async def test_a_second_product_with_the_same_gtin_is_refused(client: Client) -> None:
    await ok(client, "POST", "/items/product", {"gtin": "09506000134352"})
    status, body = await call(client, "POST", "/items/product", {"gtin": "9506000134352"})
    assert status == 400
    assert code(body) == "RECORD_NOT_UNIQUE"


async def test_a_given_id_that_differs_from_the_derived_one_is_refused(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/product", {"id": "/01/00000000000000", "gtin": "09506000134352"}
    )
    assert status == 400
    assert '"/01/09506000134352"' in message(body)


async def test_changing_the_key_an_id_derives_from_is_refused(client: Client) -> None:
    await ok(client, "POST", "/items/product", {"gtin": "09506000134352"})
    status, body = await call(
        client, "PATCH", "/items/product/%2F01%2F09506000134352", {"gtin": "4006381333931"}
    )
    assert status == 400
    assert "never changes" in message(body)


async def test_a_location_with_standard_identifiers_derives_its_id_from_gln_and_extension(
    client: Client,
) -> None:
    site = await ok(
        client, "POST", "/items/location", {"gln": "9506000134352", "use_gs1_identifiers": True}
    )
    dock = await ok(
        client,
        "POST",
        "/items/location",
        {
            "gln": "9506000134352",
            "gln_extension": "DOCK-1",
            "use_gs1_identifiers": True,
            "parent_location": site["id"],
        },
    )
    assert site["id"] == "/414/9506000134352"
    assert dock["id"] == "/414/9506000134352/254/DOCK-1"
    assert dock["digital_link"] == BASE + "/414/9506000134352/254/DOCK-1"


async def test_a_location_without_the_flag_keeps_a_client_id(client: Client) -> None:
    location = await ok(
        client, "POST", "/items/location", {"id": "plant-7", "gln": "9506000134352"}
    )
    assert location["id"] == "plant-7"


async def test_a_location_flagged_for_standard_identifiers_needs_a_gln(client: Client) -> None:
    status, body = await call(client, "POST", "/items/location", {"use_gs1_identifiers": True})
    assert status == 400
    assert '"gln"' in message(body)


async def test_a_bad_gln_is_refused_even_without_standard_identifiers(client: Client) -> None:
    status, body = await call(client, "POST", "/items/location", {"gln": "9506000134353"})
    assert status == 400
    assert "expected 2" in message(body)


async def test_a_gln_extension_outside_the_gs1_character_set_is_refused(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/location", {"gln": "9506000134352", "gln_extension": "dock #1"}
    )
    assert status == 400
    assert '"gln_extension"' in message(body)


async def test_an_organisation_derives_its_id_from_its_pgln(client: Client) -> None:
    organisation = await ok(
        client,
        "POST",
        "/items/organisation",
        {"pgln": "9506000134352", "use_gs1_identifiers": True},
    )
    assert organisation["id"] == "/417/9506000134352"
    assert organisation["digital_link"] == BASE + "/417/9506000134352"


async def test_a_company_prefix_must_be_digits(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/organisation", {"organisation_company_prefix": "95O6000"}
    )
    assert status == 400
    assert '"organisation_company_prefix"' in message(body)


async def test_a_lot_derives_its_id_from_its_products_gtin_and_its_number(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"gtin": "09506000134352"})
    lot = await ok(client, "POST", "/items/lot", {"product": product["id"], "lot_number": "AB/12"})
    assert lot["id"] == "/01/09506000134352/10/AB%2F12"
    assert lot["digital_link"] == BASE + "/01/09506000134352/10/AB%2F12"
    assert (await ok(client, "GET", "/items/lot/%2F01%2F09506000134352%2F10%2FAB%252F12"))[
        "lot_number"
    ] == "AB/12"


async def test_a_lot_of_a_product_without_a_gtin_gets_a_uuid(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"product_name": "Loose"})
    lot = await ok(client, "POST", "/items/lot", {"product": product["id"], "lot_number": "7"})
    assert len(lot["id"]) == 36


async def test_a_lot_flagged_for_standard_identifiers_needs_a_product_gtin(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/lot", {"lot_number": "7", "use_gs1_identifiers": True}
    )
    assert status == 400
    assert "GTIN" in message(body)


class TestWithTheInstallationSettingOff:
    @pytest.fixture
    def settings(self, database_url: str) -> Settings:
        """Products and lots follow only their own flag."""
        return make_settings(database_url, standard_identifiers=False)

    async def test_a_product_with_a_gtin_keeps_a_uuid(self, client: Client) -> None:
        product = await ok(client, "POST", "/items/product", {"gtin": "09506000134352"})
        assert len(product["id"]) == 36

    async def test_the_products_own_flag_still_turns_them_on(self, client: Client) -> None:
        product = await ok(
            client,
            "POST",
            "/items/product",
            {"gtin": "09506000134352", "use_gs1_identifiers": True},
        )
        assert product["id"] == "/01/09506000134352"
        assert product["digital_link"] == "http://127.0.0.1:8080/01/09506000134352"
