"""Named master-data queries (SimpleMasterDataQuery): vocabulary elements captured with
events and those of the location, organisation and product collections, answered as an
EPCISQueryDocument holding a vocabularyList at `/v2/epcis/queries/{name}/events`."""

import uuid
from typing import Any

import orjson
import pytest

from application.epcis import master_data_queries
from domain.gs1 import canonical_epc
from infrastructure.epcis_schema import DocumentValidator
from tests.conftest import AUTH
from tests.epcis.documents import document
from tests.epcis.test_capture import capture
from tests.epcis.test_master_data import (
    ROOM_ELEMENT,
    SHELF,
    SITE,
    SITE_ELEMENT,
    STORE_ROOM,
    Client,
    with_master_data,
)
from tests.epcis.test_named_queries import define

BUSINESS_LOCATION = "urn:epcglobal:epcis:vtype:BusinessLocation"
READ_POINT = "urn:epcglobal:epcis:vtype:ReadPoint"
PARTY = "urn:epcglobal:epcis:vtype:Party"
EPC_CLASS = "urn:epcglobal:epcis:vtype:EPCClass"
MDA = "urn:epcglobal:cbv:mda#"
SITE_LINK = "https://id.gs1.org/414/0614141007776"
ROOM_LINK = "https://id.gs1.org/414/0614141008889"
SHELF_LINK = "https://id.gs1.org/414/0614141009992"
WAREHOUSE_LINK = "https://id.gs1.org/414/9506000134352"
DOCK_LINK = "https://id.gs1.org/414/9506000134352/254/dock-1"


def master_data_query(**params: Any) -> dict[str, Any]:
    return {
        "queryType": "SimpleMasterDataQuery",
        "includeAttributes": True,
        "includeChildren": True,
        **params,
    }


async def run(client: Client, name: str, query: dict[str, Any]) -> Any:
    defined = await define(client, {"name": name, "query": query})
    assert defined.status == 201, await defined.text()
    return await client.get(f"/v2/epcis/queries/{name}/events", headers=AUTH)


async def vocabularies(client: Client, **params: Any) -> dict[str, dict[str, Any]]:
    """The answer's elements by id."""
    response = await run(client, f"md-{uuid.uuid4().hex}", master_data_query(**params))
    assert response.status == 200, await response.text()
    body = await response.json()
    return {
        element["id"]: {"type": vocabulary["type"], **element}
        for vocabulary in body["epcisBody"]["queryResults"]["resultsBody"]["vocabularyList"]
        for element in vocabulary["vocabularyElementList"]
    }


@pytest.fixture
async def captured(client: Client) -> None:
    response = await capture(client, with_master_data(document(), SITE_ELEMENT, ROOM_ELEMENT))
    assert response.status == 201, await response.text()


@pytest.fixture
async def locations(client: Client) -> None:
    for body in (
        {
            "id": "warehouse",
            "location_name": "Main warehouse",
            "gln": "9506000134352",
            "address": "1 Quay Street",
            "city": "Bristol",
            "postal_code": "BS1 4DJ",
            "country_code": "GB",
        },
        {
            "id": "dock",
            "location_name": "Dock 1",
            "gln": "9506000134352",
            "gln_extension": "dock-1",
            "parent_location": "warehouse",
        },
    ):
        response = await client.post("/items/location", json=body, headers=AUTH)
        assert response.status == 200, await response.text()


async def test_the_answer_is_a_query_document_with_a_vocabulary_list(
    client: Client, captured: None
) -> None:
    response = await run(client, "md", master_data_query())
    assert response.status == 200
    body = await response.json()
    results = body["epcisBody"]["queryResults"]
    assert results["queryName"] == "md"
    assert [v["type"] for v in results["resultsBody"]["vocabularyList"]] == [BUSINESS_LOCATION]
    assert DocumentValidator().validate_query_document(body) == []


async def test_captured_elements_come_with_their_attributes_and_children(
    client: Client, captured: None
) -> None:
    found = await vocabularies(client)
    assert found[SITE]["attributes"] == [
        {"id": MDA + "sst", "attribute": "201"},
        {"id": MDA + "name", "attribute": "Distribution centre"},
    ]
    assert found[SITE]["children"] == [STORE_ROOM]
    assert found[STORE_ROOM]["children"] == [SHELF]


async def test_include_flags_leave_out_attributes_and_children(
    client: Client, captured: None
) -> None:
    found = await vocabularies(client, includeAttributes=False, includeChildren=False)
    assert found[SITE] == {"type": BUSINESS_LOCATION, "id": SITE}


async def test_attribute_names_restrict_the_attributes_returned(
    client: Client, captured: None
) -> None:
    found = await vocabularies(client, attributeNames=["cbvmda:name"])
    assert found[SITE]["attributes"] == [{"id": MDA + "name", "attribute": "Distribution centre"}]


async def test_eq_name_selects_elements_by_id_in_any_epc_spelling(
    client: Client, captured: None
) -> None:
    assert list(await vocabularies(client, EQ_name=[SITE_LINK])) == [SITE]


async def test_wd_name_selects_an_element_and_everything_below_it(
    client: Client, captured: None
) -> None:
    assert set(await vocabularies(client, WD_name=[STORE_ROOM])) == {STORE_ROOM}
    assert set(await vocabularies(client, WD_name=[SITE])) == {SITE, STORE_ROOM}


async def test_hasattr_and_eq_attr_select_by_attribute(client: Client, captured: None) -> None:
    assert list(await vocabularies(client, HASATTR=["cbvmda:sst"])) == [SITE]
    assert list(await vocabularies(client, **{"EQ_ATTR_cbvmda:sst": ["201"]})) == [SITE]
    assert await vocabularies(client, **{"EQ_ATTR_cbvmda:sst": ["202"]}) == {}


async def test_vocabulary_name_selects_vocabularies(client: Client, captured: None) -> None:
    assert await vocabularies(client, vocabularyName=[EPC_CLASS]) == {}
    assert set(await vocabularies(client, vocabularyName=[BUSINESS_LOCATION])) == {
        SITE,
        STORE_ROOM,
    }


async def test_locations_are_business_location_elements_with_cbv_attributes(
    client: Client, locations: None
) -> None:
    found = await vocabularies(client, vocabularyName=[BUSINESS_LOCATION])
    assert found[WAREHOUSE_LINK]["attributes"] == [
        {"id": MDA + "name", "attribute": "Main warehouse"},
        {"id": MDA + "streetAddressOne", "attribute": "1 Quay Street"},
        {"id": MDA + "city", "attribute": "Bristol"},
        {"id": MDA + "postalCode", "attribute": "BS1 4DJ"},
        {"id": MDA + "countryCode", "attribute": "GB"},
    ]
    assert found[WAREHOUSE_LINK]["children"] == [DOCK_LINK]


async def test_locations_are_read_point_elements_too(client: Client, locations: None) -> None:
    sites = await vocabularies(client, vocabularyName=[BUSINESS_LOCATION])
    found = await vocabularies(client, vocabularyName=[READ_POINT])
    assert set(found) == {WAREHOUSE_LINK, DOCK_LINK}
    for link in (WAREHOUSE_LINK, DOCK_LINK):
        assert found[link] == {**sites[link], "type": READ_POINT}
    either = await vocabularies(client, vocabularyName=[READ_POINT], WD_name=[WAREHOUSE_LINK])
    assert set(either) == {WAREHOUSE_LINK, DOCK_LINK}


async def test_without_vocabulary_name_a_location_answers_in_both_vocabularies(
    client: Client, locations: None
) -> None:
    response = await run(client, "all", master_data_query(EQ_name=[DOCK_LINK]))
    body = await response.json()
    answered = body["epcisBody"]["queryResults"]["resultsBody"]["vocabularyList"]
    assert [(v["type"], [e["id"] for e in v["vocabularyElementList"]]) for v in answered] == [
        (BUSINESS_LOCATION, [DOCK_LINK]),
        (READ_POINT, [DOCK_LINK]),
    ]


async def test_wd_name_follows_parent_locations(client: Client, locations: None) -> None:
    found = await vocabularies(client, WD_name=["urn:epc:id:sgln:9506000.13435.0"])
    assert set(found) == {WAREHOUSE_LINK, DOCK_LINK}


async def test_organisations_and_products_are_party_and_epc_class_elements(
    client: Client,
) -> None:
    organisation = {"organisation_name": "Acme", "pgln": "9506000134352", "city": "Leeds"}
    product = {"product_name": "Oat drink", "gtin": "09506000134352"}
    for collection, body in (("organisation", organisation), ("product", product)):
        response = await client.post(f"/items/{collection}", json=body, headers=AUTH)
        assert response.status == 200, await response.text()
    found = await vocabularies(client, vocabularyName=[PARTY, EPC_CLASS])
    party = found["https://id.gs1.org/417/9506000134352"]
    assert party["type"] == PARTY
    assert {"id": MDA + "name", "attribute": "Acme"} in party["attributes"]
    trade_item = found["https://id.gs1.org/01/09506000134352"]
    assert trade_item["type"] == EPC_CLASS
    assert {"id": "https://gs1.org/voc/productName", "attribute": "Oat drink"} in trade_item[
        "attributes"
    ]


async def test_captured_master_data_wins_over_the_location_collection(
    client: Client, locations: None
) -> None:
    element = {"id": WAREHOUSE_LINK, "attributes": [{"id": "cbvmda:name", "attribute": "DC"}]}
    await capture(client, with_master_data(document(), element))
    sites = [BUSINESS_LOCATION]
    found = await vocabularies(client, vocabularyName=sites, EQ_name=[WAREHOUSE_LINK])
    assert found[WAREHOUSE_LINK]["attributes"] == [{"id": MDA + "name", "attribute": "DC"}]
    # The collection's attributes do not answer for an element the capture defined.
    assert (
        await vocabularies(client, vocabularyName=sites, **{"EQ_ATTR_cbvmda:city": ["Bristol"]})
        == {}
    )
    # The capture defined a BusinessLocation: the location is still the collection's
    # ReadPoint.
    found = await vocabularies(client, vocabularyName=[READ_POINT], EQ_name=[WAREHOUSE_LINK])
    assert found[WAREHOUSE_LINK]["attributes"][0] == {
        "id": MDA + "name",
        "attribute": "Main warehouse",
    }


async def test_max_element_count_refuses_a_larger_answer_with_413(
    client: Client, captured: None, locations: None
) -> None:
    # Two captured elements, two locations each a BusinessLocation and a ReadPoint.
    response = await run(client, "md", master_data_query(maxElementCount=5))
    assert response.status == 413
    assert (await response.json())["type"] == "epcisException:QueryTooLargeException"
    response = await run(client, "md6", master_data_query(maxElementCount=6))
    assert response.status == 200


@pytest.mark.parametrize("batch", [1000, 3])
async def test_a_wd_name_tree_larger_than_a_batch_answers_alike_in_order(
    client: Client, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    # The keys of a large tree are read in batches (3 here stands for 1,000).
    monkeypatch.setattr(master_data_queries, "_BATCH", batch)
    rooms = [f"urn:epc:id:sgln:0614141.{n:05d}.0" for n in (7, 3, 9, 1, 8, 2, 6)]
    root = {"id": SITE, "children": rooms}
    tree = with_master_data(document(), root, *[{"id": room} for room in rooms])
    assert (await capture(client, tree)).status == 201, "captured"
    found = await vocabularies(client, vocabularyName=[BUSINESS_LOCATION], WD_name=[SITE])
    assert list(found) == sorted([SITE, *rooms], key=lambda e: canonical_epc(e))
    response = await run(client, "md-seven", master_data_query(WD_name=[SITE], maxElementCount=7))
    assert response.status == 413


@pytest.mark.parametrize(
    "query",
    [
        {"queryType": "SimpleMasterDataQuery", "includeChildren": True},
        master_data_query(includeAttributes="maybe"),
        master_data_query(EQ_bizStep=["shipping"]),
        master_data_query(maxElementCount="many"),
        {**master_data_query(), "queryType": "SimpleVocabularyQuery"},
    ],
)
async def test_a_bad_master_data_query_is_refused_when_defined(
    client: Client, query: dict[str, Any]
) -> None:
    response = await define(client, {"name": "md", "query": query})
    assert response.status == 400
    assert (await response.json())["type"] == "epcisException:QueryValidationException"


async def test_a_master_data_query_takes_no_parameters_and_no_subscriptions(
    client: Client,
) -> None:
    await run(client, "md", master_data_query())
    response = await client.get("/v2/epcis/queries/md/events?perPage=2", headers=AUTH)
    assert response.status == 400
    response = await client.post(
        "/v2/epcis/queries/md/subscriptions",
        data=orjson.dumps({"dest": "https://partner.example/hook", "reportIfEmpty": True}),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert response.status == 400


async def test_an_event_query_keeps_its_stored_form(client: Client) -> None:
    query = {"queryType": "SimpleEventQuery", "EQ_bizStep": ["shipping"]}
    response = await define(client, {"name": "ev", "query": query})
    assert (await response.json())["query"] == {"EQ_bizStep": ["shipping"]}


async def test_master_data_queries_are_defined_through_the_items_api_too(
    client: Client, captured: None
) -> None:
    body = {"name": "md", "query": master_data_query(EQ_name=[SITE])}
    response = await client.post("/items/epcis_queries", json=body, headers=AUTH)
    assert response.status == 200, await response.text()
    answer = await client.get("/v2/epcis/queries/md/events", headers=AUTH)
    vocabulary = (await answer.json())["epcisBody"]["queryResults"]["resultsBody"]
    assert [e["id"] for v in vocabulary["vocabularyList"] for e in v["vocabularyElementList"]] == [
        SITE
    ]
    bad = {"name": "bad", "query": {"queryType": "SimpleMasterDataQuery"}}
    response = await client.post("/items/epcis_queries", json=bad, headers=AUTH)
    assert response.status == 400


async def test_a_master_data_query_is_stored_with_the_curies_its_context_binds_expanded(
    client: Client,
) -> None:
    query = {
        "@context": [{"ex": "https://ns.example.com/"}],
        **master_data_query(HASATTR=["ex:grade"], **{"EQ_ATTR_ex:grade": ["A"]}),
    }
    response = await define(client, {"name": "md", "query": query})
    stored = (await response.json())["query"]
    assert stored["HASATTR"] == ["https://ns.example.com/grade"]
    assert stored["EQ_ATTR_https://ns.example.com/grade"] == ["A"]
    assert "EQ_ATTR_ex:grade" not in stored
