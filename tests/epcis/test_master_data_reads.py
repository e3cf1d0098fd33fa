"""A master-data query over a large collection reads only the records its conditions
select: the database filters them (by id, GS1 key, parent and attribute), not Python."""

from collections.abc import Callable
from typing import Any

import pytest

from application.service.runtime import Tracepoint
from projections.epcis.vocabulary_reader import VocabularyReader
from tests.conftest import AUTH
from tests.epcis.documents import document
from tests.epcis.test_capture import capture
from tests.epcis.test_master_data import Client
from tests.epcis.test_master_data_queries import (
    BUSINESS_LOCATION,
    EPC_CLASS,
    MDA,
    PARTY,
    run,
    vocabularies,
)

BULK = 300
OAT_DRINK = "https://id.gs1.org/01/09506000134352"
BRAND = "https://gs1.org/voc/brandName"
LATITUDE = "EQ_ATTR_cbvmda:latitude"


@pytest.fixture
async def products(client: Client) -> None:
    bulk = [{"product_name": f"Product {n}", "brand": "Bulk"} for n in range(BULK)]
    special = [
        {"id": "oats", "product_name": "Oats", "brand": "Oaty"},
        {"product_name": "Oat drink", "gtin": "09506000134352", "parent_product": "oats"},
        {"id": "oat-bar", "product_name": "Oat bar", "brand": "Oaty", "parent_product": "oats"},
    ]
    brands = await client.post(
        "/items/brand", json=[{"brand_name": "Bulk"}, {"brand_name": "Oaty"}], headers=AUTH
    )
    assert brands.status == 200, await brands.text()
    # A batch is checked whole: the parent exists before its children name it.
    for batch in (bulk + special[:1], special[1:]):
        response = await client.post("/items/product", json=batch, headers=AUTH)
        assert response.status == 200, await response.text()


@pytest.fixture
def rows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many records each read of a collection returned."""
    counts: list[int] = []

    def counting(read: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            rows = read(*args, **kwargs)
            counts.append(len(rows))
            return rows

        return counted

    for name in ("collection_rows", "collection_children"):
        monkeypatch.setattr(VocabularyReader, name, counting(getattr(VocabularyReader, name)))
    return counts


async def test_eq_name_reads_the_one_record_it_names(
    client: Client, products: None, rows_read: list[int]
) -> None:
    found = await vocabularies(client, EQ_name=[OAT_DRINK], includeChildren=False)
    assert list(found) == [OAT_DRINK]
    assert sum(rows_read) == 1


async def test_eq_attr_and_hasattr_read_only_the_records_with_the_attribute(
    client: Client, products: None, rows_read: list[int]
) -> None:
    found = await vocabularies(client, **{f"EQ_ATTR_{BRAND}": ["Oaty"]})
    assert set(found) == {"oats", "oat-bar"}
    # The two records, and Oats' children.
    assert rows_read == [2, 2]
    rows_read.clear()
    found = await vocabularies(client, HASATTR=["https://gs1.org/voc/gtin"])
    assert list(found) == [OAT_DRINK]
    assert sum(rows_read) == 1


async def test_wd_name_reads_the_named_record_and_those_below_it(
    client: Client, products: None, rows_read: list[int]
) -> None:
    found = await vocabularies(client, WD_name=["oats"], includeChildren=False)
    assert set(found) == {"oats", "oat-bar", OAT_DRINK}
    assert sum(rows_read) < 10


async def test_max_element_count_stops_reading_past_the_limit(
    client: Client, products: None, rows_read: list[int]
) -> None:
    query = {
        "queryType": "SimpleMasterDataQuery",
        "includeAttributes": False,
        "includeChildren": False,
        "vocabularyName": [EPC_CLASS],
        "maxElementCount": 5,
    }
    response = await run(client, "few", query)
    assert response.status == 413
    assert sum(rows_read) <= 6


async def test_pgln_and_gln_are_looked_up_by_index(tracepoint: Tracepoint) -> None:
    database = tracepoint.database
    postgres = database.dialect.name == "postgresql"
    for table, column in (("location", "gln"), ("organisation", "pgln")):
        with database.transaction(write=False) as conn:
            if postgres:
                conn.execute("SET LOCAL enable_seqscan = off")
            explain = "EXPLAIN" if postgres else "EXPLAIN QUERY PLAN"
            plan = " ".join(
                str(row[-1])
                for row in conn.fetchall(
                    f'{explain} SELECT "id" FROM "{table}" WHERE "{column}" IN (?, ?)',
                    ["9506000134352", "0614141007776"],
                )
            )
        assert f"{table}__eq_{column}" in plan, plan


async def test_organisations_are_found_by_pgln_without_reading_the_others(
    client: Client, rows_read: list[int]
) -> None:
    bulk = [{"organisation_name": f"Org {n}"} for n in range(50)]
    acme = {"organisation_name": "Acme", "pgln": "9506000134352"}
    response = await client.post("/items/organisation", json=[*bulk, acme], headers=AUTH)
    assert response.status == 200, await response.text()
    found = await vocabularies(
        client, vocabularyName=[PARTY], EQ_name=["https://id.gs1.org/417/9506000134352"]
    )
    assert list(found) == ["https://id.gs1.org/417/9506000134352"]
    assert max(rows_read) == 1


async def test_max_element_count_reads_on_past_records_the_capture_defines(
    client: Client,
) -> None:
    for name in ("a", "b", "c"):
        body = {"id": f"urn:example:item-{name}", "product_name": name}
        response = await client.post("/items/product", json=body, headers=AUTH)
        assert response.status == 200, await response.text()
    defined = [
        {
            "id": f"urn:example:item-{name}",
            "attributes": [{"id": "cbvmda:name", "attribute": "captured"}],
        }
        for name in ("a", "b")
    ]
    doc = {
        **document(),
        "epcisHeader": {
            "epcisMasterData": {
                "vocabularyList": [{"type": EPC_CLASS, "vocabularyElementList": defined}]
            }
        },
    }
    assert (await capture(client, doc)).status == 201
    found = await vocabularies(client, vocabularyName=[EPC_CLASS], maxElementCount=3)
    assert sorted(found) == ["urn:example:item-a", "urn:example:item-b", "urn:example:item-c"]
    assert found["urn:example:item-a"]["attributes"] == [
        {"id": MDA + "name", "attribute": "captured"}
    ]
    assert found["urn:example:item-c"]["attributes"] == [
        {"id": "https://gs1.org/voc/productName", "attribute": "c"}
    ]


async def test_number_and_empty_fields_match_as_their_attribute_text(client: Client) -> None:
    for body in (
        {"id": "north", "location_name": "North", "latitude": 51.5, "city": ""},
        {"id": "south", "location_name": "South", "latitude": -33.25, "city": "Cape Town"},
    ):
        response = await client.post("/items/location", json=body, headers=AUTH)
        assert response.status == 200, await response.text()
    sites = [BUSINESS_LOCATION]
    assert list(await vocabularies(client, vocabularyName=sites, **{LATITUDE: ["51.5"]})) == [
        "north"
    ]
    # The attribute's text is how the number is written: 51.50 is not it.
    assert await vocabularies(client, vocabularyName=sites, **{LATITUDE: ["51.50"]}) == {}
    assert list(await vocabularies(client, vocabularyName=sites, HASATTR=["cbvmda:city"])) == [
        "south"
    ]
