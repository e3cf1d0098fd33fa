"""Without PUBLIC_URL, links point at the address and port the service listens on."""

import pytest

from infrastructure.settings import Settings
from tests.access.helpers import Client, ok
from tests.conftest import make_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """A service on another port than 8080, PUBLIC_URL and the Digital Link base unset."""
    return make_settings(database_url, host="127.0.0.1", port=9123)


async def test_digital_links_follow_the_port_when_public_url_is_unset(client: Client) -> None:
    product = await ok(client, "POST", "/items/product", {"gtin": "9506000134352"})
    assert product["digital_link"] == "http://127.0.0.1:9123/01/09506000134352"
