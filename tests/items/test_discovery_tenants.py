"""Schema discovery in a multi-tenant installation: `account` and the `account` fields
are described where the caller may read them."""

from pathlib import Path

import pytest

from infrastructure.settings import Settings
from tests.access.helpers import Client, ok, user_with
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    """A multi-tenant installation."""
    return make_settings(database_url, multi_tenant=True, uploads_dir=str(tmp_path / "uploads"))


async def test_an_admin_sees_the_accounts_and_what_belongs_to_them(client: Client) -> None:
    assert (await ok(client, "GET", "/collections/account"))["meta"]["system"] is False
    account = await ok(client, "GET", "/relations/product/account")
    assert account["related_collection"] == "account"


async def test_accounts_are_described_only_to_who_may_read_them(client: Client) -> None:
    reader = await user_with(client, {"collection": "product", "action": "read", "fields": ["*"]})
    listed = await ok(client, "GET", "/collections", token=reader.token)
    assert [c["collection"] for c in listed] == ["product"]
    fields = await ok(client, "GET", "/fields/product", token=reader.token)
    assert "account" in [f["field"] for f in fields]
    relations = await ok(client, "GET", "/relations/product", token=reader.token)
    assert "account" not in [r["field"] for r in relations]
