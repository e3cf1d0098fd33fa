"""A real OpenID provider for the single sign-on tests, and a browser that signs in there.

`provider.mjs` runs panva's oidc-provider (OpenID certified; pinned in package.json and its
lockfile, installed by `npm ci` in `make install`). Where node or the modules are missing
the tests that need it are skipped, except in CI, where they fail.
"""

import contextlib
import os
import selectors
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import aiohttp
import pytest

from tests.conftest import is_true
from tests.services import free_port

HERE = Path(__file__).parent
CLIENT_ID, CLIENT_SECRET = "tracepoint", "tracepoint-secret"
#: Seconds the provider may take to start.
START_TIMEOUT = 30


@dataclass(frozen=True)
class OpenIDProvider:
    """A running provider: its issuer, and the client registered with it."""

    issuer: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET


def _node() -> str:
    """The node executable, once oidc-provider is installed; else skip, or fail in CI."""
    node = shutil.which("node")
    if node is None:
        problem = "node is not installed"
    elif not (HERE / "node_modules" / "oidc-provider").is_dir():
        problem = f"oidc-provider is not installed: run `npm ci` in {HERE} (`make install` does)"
    else:
        return node
    if is_true(os.environ.get("CI")):
        pytest.fail(f"The OpenID provider is mandatory in CI and {problem}")
    pytest.skip(f"single sign-on tests skipped: {problem}")


@contextlib.contextmanager
def running_provider(redirect_uris: list[str]) -> Iterator[OpenIDProvider]:
    """oidc-provider on a free port, accepting these redirect URIs, until the block ends."""
    node = _node()
    port = free_port()
    process = subprocess.Popen(
        [node, str(HERE / "provider.mjs")],
        cwd=HERE,
        env={
            **os.environ,
            "PORT": str(port),
            "REDIRECT_URIS": ",".join(redirect_uris),
            "CLIENT_ID": CLIENT_ID,
            "CLIENT_SECRET": CLIENT_SECRET,
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = _first_line(process, START_TIMEOUT)
        assert line.startswith("listening "), f"oidc-provider did not start: {line!r}"
        yield OpenIDProvider(line.split(" ", 1)[1].strip())
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _first_line(process: subprocess.Popen[str], seconds: float) -> str:
    """The provider's first line of output (or what it said before it died)."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(seconds):
            return f"nothing within {seconds} s"
    return process.stdout.readline()


def browser() -> aiohttp.ClientSession:
    """A client that keeps cookies as a browser does (on IP-address hosts too)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def through_provider(
    session: aiohttp.ClientSession,
    authorize_url: str,
    account: str,
    callback_prefix: str,
) -> str:
    """Follow the provider's redirects from `authorize_url`, signing in as `account` at its
    login form, up to the redirect back to the service: that callback URL, not yet visited."""
    url = authorize_url
    for _ in range(20):
        if url.startswith(callback_prefix):
            return url
        async with session.get(url, allow_redirects=False) as response:
            if response.status in (301, 302, 303, 307, 308):
                url = urljoin(url, response.headers["Location"])
                continue
            body = await response.text()
            assert response.status == 200, (response.status, body)
            assert 'name="login"' in body, body
            action = body.split('action="', 1)[1].split('"', 1)[0]
        async with session.post(
            urljoin(url, action), data={"login": account}, allow_redirects=False
        ) as posted:
            assert posted.status in (302, 303), (posted.status, await posted.text())
            url = urljoin(url, posted.headers["Location"])
    raise AssertionError(f"no redirect back to the service from {authorize_url}")
