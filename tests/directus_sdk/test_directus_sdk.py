"""The official Directus JavaScript SDK (`@directus/sdk`, pinned in package.json) against a
live service on SQLite: `check.mjs` logs in, reads and writes items with `/01/…` and
`/414/…` keys, uploads a file and reads permissions, as a platform user would.

Needs node and `npm ci` in this folder (`make install` runs it). Where node or the
modules are missing the test is skipped, except in CI, where it fails.
"""

import asyncio
import os
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from infrastructure.settings import Settings
from tests.conftest import ADMIN_TOKEN, is_true, make_settings

HERE = Path(__file__).parent
SCRIPT = HERE / "check.mjs"
#: Enough for the whole script several times over: a hung call fails rather than waits.
TIMEOUT = 60
#: The bootstrap admin the script signs in as (the service makes it at start-up).
EMAIL, PASSWORD = "sdk-admin@example.com", "sdk-" + secrets.token_hex(8)


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The service under test, with this module's admin."""
    return make_settings(database_url, admin_email=EMAIL, admin_password=PASSWORD)


def _node() -> str:
    """The node executable, once the SDK is installed; else skip, or fail in CI."""
    node = shutil.which("node")
    if node is None:
        problem = "node is not installed"
    elif not (HERE / "node_modules" / "@directus" / "sdk").is_dir():
        problem = f"the SDK is not installed: run `npm ci` in {HERE} (`make install` does)"
    else:
        return node
    if is_true(os.environ.get("CI")):
        pytest.fail(f"The Directus SDK check is mandatory in CI and {problem}")
    pytest.skip(f"Directus SDK check skipped: {problem}")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_directus_sdk_works_unmodified(client: TestClient[Any, Any]) -> None:
    node = _node()
    environment = {
        **os.environ,
        "DIRECTUS_URL": str(client.make_url("")).rstrip("/"),
        "ADMIN_EMAIL": EMAIL,
        "ADMIN_PASSWORD": PASSWORD,
        "ADMIN_TOKEN": ADMIN_TOKEN,
    }
    process = await asyncio.create_subprocess_exec(
        node,
        str(SCRIPT),
        cwd=HERE,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        pytest.fail(f"check.mjs did not finish in {TIMEOUT} s")
    sys.stdout.write(out.decode())
    assert process.returncode == 0, err.decode()
