"""`GET /server/specs/oas`: a valid OpenAPI 3.1 document of both API families, served
to any caller, with the collections the caller may read."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

from domain.epcis.event_query import named_parameters
from tests.access.helpers import user_with
from tests.conftest import AUTH

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def _document(client: TestClient[Any, Any], **headers: str) -> dict[str, Any]:
    response = await client.get("/server/specs/oas", headers=headers)
    assert response.status == 200
    document: dict[str, Any] = await response.json()
    return document


async def test_the_document_is_valid_openapi_3_1(client: TestClient[Any, Any]) -> None:
    document = await _document(client, **AUTH)
    assert document["openapi"] == "3.1.0"
    validate(document)


async def test_the_document_is_served_to_a_caller_who_is_not_signed_in(
    client: TestClient[Any, Any],
) -> None:
    document = await _document(client)
    validate(document)
    assert "/v2/epcis/events" in document["paths"]
    assert "/auth/login" in document["paths"]


async def test_collections_the_caller_may_not_read_are_left_out(
    client: TestClient[Any, Any],
) -> None:
    public = await _document(client)
    admin = await _document(client, **AUTH)
    assert "/items/product" in admin["paths"]
    assert "/users/{key}" in admin["paths"]
    assert "/items/product" not in public["paths"]
    assert "/users/{key}" not in public["paths"]


async def test_a_user_sees_the_collections_its_policies_let_it_read(
    client: TestClient[Any, Any],
) -> None:
    reader = await user_with(client, {"collection": "product", "action": "read"})
    paths = (await _document(client, Authorization=f"Bearer {reader.token}"))["paths"]
    assert "/items/product/{key}" in paths
    assert "/items/lot" not in paths
    assert "/users" not in paths


async def test_an_invalid_token_is_refused_as_on_every_platform_route(
    client: TestClient[Any, Any],
) -> None:
    response = await client.get(
        "/server/specs/oas", headers={"Authorization": "Bearer not-a-token"}
    )
    assert response.status in (401, 403)
    assert "errors" in await response.json()


async def test_item_schemas_come_from_the_catalogue_with_their_relations(
    client: TestClient[Any, Any],
) -> None:
    schemas = (await _document(client, **AUTH))["components"]["schemas"]
    manufacturer = schemas["product"]["properties"]["product_manufacturer"]
    assert {"$ref": "#/components/schemas/organisation"} in manufacturer["anyOf"][0]["anyOf"]
    policies = schemas["users"]["properties"]["policies"]["anyOf"][0]
    assert policies["type"] == "array"


async def test_the_event_query_takes_the_parameters_the_parser_reads(
    client: TestClient[Any, Any],
) -> None:
    operation = (await _document(client))["paths"]["/v2/epcis/events"]["get"]
    names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    assert set(named_parameters()) | {"perPage", "nextPageToken"} == names
    assert "EQ_bizTransaction_<type>" in operation["description"]


async def test_each_family_documents_its_error_shape(client: TestClient[Any, Any]) -> None:
    paths = (await _document(client, **AUTH))["paths"]
    platform = paths["/items/product"]["get"]["responses"]["default"]
    epcis = paths["/v2/epcis/events"]["get"]["responses"]["default"]
    assert platform == {"$ref": "#/components/responses/PlatformError"}
    assert epcis == {"$ref": "#/components/responses/EpcisProblem"}


async def test_the_sign_in_schemes_of_both_families_are_named(
    client: TestClient[Any, Any],
) -> None:
    document = await _document(client)
    schemes = document["components"]["securitySchemes"]
    assert {"bearer", "accessTokenQuery", "sessionCookie", "epcisStaticToken"} == set(schemes)
    capture = document["paths"]["/v2/epcis/capture"]["post"]
    assert {"epcisStaticToken": []} in capture["security"]


async def test_a_create_links_to_the_read_update_and_delete_of_what_it_made(
    client: TestClient[Any, Any],
) -> None:
    paths = (await _document(client, **AUTH))["paths"]
    links = paths["/items/product"]["post"]["responses"]["200"]["links"]
    assert links["read"] == {
        "operationId": paths["/items/product/{key}"]["get"]["operationId"],
        "parameters": {"key": "$response.body#/data/id"},
    }
    assert set(links) == {"read", "update", "delete"}
