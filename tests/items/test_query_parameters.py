"""The query parameters Directus clients send, through the API on both backends: `export`
(a file answer), `deep`, `alias`, and to-many relations read as keys under `fields=*`."""

import csv
import io
import re
from typing import Any
from urllib.parse import quote

import orjson
import pytest
import yaml
from lxml import etree

from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import AUTH


async def products(client: Client) -> dict[str, Any]:
    """Three products, two certified organic (one also fair-trade), with translations."""
    organic = await ok(client, "POST", "/items/certification", {"certification_type": "ORGANIC"})
    fair = await ok(client, "POST", "/items/certification", {"certification_type": "FAIRTRADE"})
    oats = await ok(
        client,
        "POST",
        "/items/product",
        {
            "gtin": "09506000134352",
            "product_name": "Oats",
            "net_weight": 1.5,
            "certifications": [
                {"certification_id": organic["id"]},
                {"certification_id": fair["id"]},
            ],
            "translations": [
                {"languages_code": "en", "product_description": "Oats"},
                {"languages_code": "fr", "product_description": "Avoine"},
            ],
        },
    )
    rye = await ok(
        client,
        "POST",
        "/items/product",
        {
            "gtin": "09506000134369",
            "product_name": 'Rye, "dark"',
            "certifications": [{"certification_id": organic["id"]}],
        },
    )
    await ok(client, "POST", "/items/product", {"gtin": "09506000134376", "product_name": "Salt"})
    return {"organic": organic["id"], "fair": fair["id"], "oats": oats, "rye": rye}


def product_path(product: dict[str, Any]) -> str:
    """A product's path: its `/01/<gtin>` key percent-encoded."""
    return "/items/product/" + quote(product["id"], safe="")


async def download(client: Client, query: dict[str, str], path: str = "/items/product") -> Any:
    response = await client.get(path, params=query, headers=AUTH)
    assert response.status == 200, await response.text()
    return response


# --- to-many relations under fields=* -----------------------------------------------------


async def test_to_many_relations_read_as_arrays_of_keys_under_star(client: Client) -> None:
    made = await products(client)
    oats = await ok(client, "GET", product_path(made["oats"]))
    junction = await ok(
        client, "GET", "/items/product_certifications", params={"fields": "id,product_id"}
    )
    assert sorted(oats["certifications"]) == sorted(
        row["id"] for row in junction if row["product_id"] == made["oats"]["id"]
    )
    assert len(oats["translations"]) == 2
    assert all(isinstance(key, int) for key in oats["translations"])


async def test_a_certification_lists_the_junction_keys_of_what_it_covers(client: Client) -> None:
    made = await products(client)
    organic = await ok(client, "GET", f"/items/certification/{made['organic']}")
    assert len(organic["covered_products"]) == 2


async def test_a_notices_line_items_read_as_keys_under_star(client: Client) -> None:
    notice = await ok(
        client,
        "POST",
        "/items/shipment_notice",
        {"ship_notice_number": "ASN-1", "line_items": [{"package_id": "P1"}]},
    )
    (line,) = await ok(client, "GET", "/items/shipment_notice_line_item")
    assert notice["line_items"] == [line["id"]]


async def test_a_policys_users_and_roles_read_as_keys_under_star(client: Client) -> None:
    made = await user_with(client)
    policy = await ok(client, "GET", f"/policies/{made.policy}")
    assert policy["roles"] == []
    (access,) = policy["users"]
    assert (await ok(client, "GET", f"/users/{made.id}", params={"fields": "policies"}))[
        "policies"
    ] == [access]


# --- deep and alias -----------------------------------------------------------------------


async def test_deep_filters_translations_in_bracket_form(client: Client) -> None:
    made = await products(client)
    oats = await ok(
        client,
        "GET",
        product_path(made["oats"]),
        params={
            "fields": "translations.product_description",
            "deep[translations][_filter][languages_code][_eq]": "fr",
        },
    )
    assert oats["translations"] == [{"product_description": "Avoine"}]


async def test_deep_filters_a_many_to_many_relation_through_its_junction(client: Client) -> None:
    made = await products(client)
    deep = {
        "certifications": {"_filter": {"certification_id": {"certification_type": "FAIRTRADE"}}}
    }
    items = await ok(
        client,
        "GET",
        "/items/product",
        params={
            "fields": "product_name,certifications.certification_id.certification_type",
            "deep": orjson.dumps(deep).decode(),
            "sort": "product_name",
        },
    )
    assert [item["certifications"] for item in items] == [
        [{"certification_id": {"certification_type": "FAIRTRADE"}}],
        [],
        [],
    ]
    assert made


async def test_an_alias_reads_translations_twice_with_two_deep_filters(client: Client) -> None:
    made = await products(client)
    oats = await ok(
        client,
        "GET",
        product_path(made["oats"]),
        params={
            "fields": "english.product_description,french.product_description",
            "alias": '{"english": "translations", "french": "translations"}',
            "deep": '{"english": {"_filter": {"languages_code": "en"}},'
            ' "french": {"_filter": {"languages_code": "fr"}}}',
        },
    )
    assert oats == {
        "english": [{"product_description": "Oats"}],
        "french": [{"product_description": "Avoine"}],
    }


async def test_deep_and_alias_work_in_a_search_body(client: Client) -> None:
    made = await products(client)
    status, body = await call(
        client,
        "SEARCH",
        "/items/product",
        {
            "query": {
                "fields": ["product_name", "fr.product_description"],
                "alias": {"fr": "translations"},
                "deep": {"fr": {"_filter": {"languages_code": {"_eq": "fr"}}}},
                "filter": {"id": {"_eq": made["oats"]["id"]}},
            }
        },
    )
    assert status == 200
    assert body["data"] == [{"product_name": "Oats", "fr": [{"product_description": "Avoine"}]}]


@pytest.mark.parametrize(
    "params",
    [
        {"deep": "{not json"},
        {"deep[translations][_fields]": "id"},
        {"deep[product_name][_limit]": "1"},
        {"alias[a.b]": "translations"},
        {"alias[x]": "translations.id"},
        {"export": "pdf"},
    ],
)
async def test_malformed_deep_alias_or_export_is_400_invalid_query(
    client: Client, params: dict[str, str]
) -> None:
    status, body = await call(client, "GET", "/items/product", params=params)
    assert status == 400
    assert code(body) == "INVALID_QUERY"


async def test_a_field_the_caller_may_not_read_is_forbidden_in_deep(client: Client) -> None:
    reader = await user_with(
        client,
        {"collection": "product", "action": "read", "fields": ["*"]},
        {"collection": "product_translations", "action": "read", "fields": ["id", "product_id"]},
    )
    await products(client)
    allowed = {"fields": "id,translations.id", "deep[translations][_sort]": "-id"}
    assert await ok(client, "GET", "/items/product", params=allowed, token=reader.token)
    status, body = await call(
        client,
        "GET",
        "/items/product",
        params={"deep[translations][_filter][languages_code][_eq]": "fr"},
        token=reader.token,
    )
    assert status == 403
    assert code(body) == "FORBIDDEN"
    assert "languages_code" in body["errors"][0]["message"]


# --- export -------------------------------------------------------------------------------

_FILENAME = re.compile(r'attachment; filename="product \d{8}-\d{6}\.(csv|json|xml|yaml)"')
_QUERY = {
    "filter[product_name][_neq]": "Salt",
    "fields": "gtin,product_name,net_weight,certifications",
    "sort": "gtin",
}


def _rows(format: str, body: bytes) -> list[dict[str, Any]]:
    """The exported rows read back with the format's own parser."""
    if format in ("csv", "csv_utf8"):
        return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    if format == "json":
        return list(orjson.loads(body))
    if format == "yaml":
        return list(yaml.safe_load(body))
    root = etree.fromstring(body)
    assert root.tag == "data"
    return [
        {
            name: [e.text for e in item if e.tag == name]
            if name == "certifications"
            else item.findtext(name)
            for name in ("gtin", "product_name", "net_weight", "certifications")
        }
        for item in root
    ]


@pytest.mark.parametrize(
    ("format", "media_type"),
    [
        ("csv", "text/csv"),
        ("csv_utf8", "text/csv; charset=utf-8"),
        ("json", "application/json"),
        ("xml", "text/xml"),
        ("yaml", "text/yaml"),
    ],
)
async def test_export_answers_the_filtered_fields_as_a_file(
    client: Client, format: str, media_type: str
) -> None:
    await products(client)
    response = await download(client, {**_QUERY, "export": format})
    assert response.headers["Content-Type"] == media_type
    assert _FILENAME.fullmatch(response.headers["Content-Disposition"])
    rows = _rows(format, await response.read())
    assert [row["gtin"] for row in rows] == ["09506000134352", "09506000134369"]
    assert rows[1]["product_name"] == 'Rye, "dark"'
    assert set(rows[0]) == {"gtin", "product_name", "net_weight", "certifications"}
    certified = rows[0]["certifications"]
    if format.startswith("csv"):
        certified = orjson.loads(certified)
    assert len(certified) == 2


async def test_a_csv_export_spreads_related_items_into_dotted_columns(client: Client) -> None:
    await products(client)
    response = await download(
        client,
        {
            "fields": "product_name,translations.languages_code",
            "filter[gtin][_eq]": "09506000134352",
            "export": "csv",
        },
    )
    (row,) = csv.DictReader(io.StringIO(await response.text()))
    assert row["product_name"] == "Oats"
    assert orjson.loads(row["translations"]) == [{"languages_code": "en"}, {"languages_code": "fr"}]


async def test_an_export_of_one_item_is_the_item(client: Client) -> None:
    made = await products(client)
    response = await download(
        client, {"fields": "gtin", "export": "json"}, product_path(made["oats"])
    )
    assert orjson.loads(await response.read()) == {"gtin": "09506000134352"}


async def test_an_export_of_nothing_is_an_empty_file(client: Client) -> None:
    response = await download(client, {"export": "csv"})
    assert await response.read() == b""


async def test_a_system_collection_exports_too(client: Client) -> None:
    response = await download(client, {"fields": "email", "export": "yaml"}, "/users")
    assert response.headers["Content-Disposition"].startswith('attachment; filename="users ')
    (admin,) = yaml.safe_load(await response.read())
    assert set(admin) == {"email"}
