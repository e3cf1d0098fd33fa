"""The real browser of the console tests: Debian's chromium driven by Playwright (never a
browser Playwright downloads), and a `tracepoint serve` process for it to open.

Where chromium or Playwright is missing the tests are skipped with the reason, except in
CI, where they fail: `make install` installs chromium with apt-get.
"""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ADMIN_TOKEN, is_true, run_database
from tests.services import answers, free_port, wait_for

CONSOLE_SCRIPT = Path(sys.executable).parent / "tracepoint"
ADMIN_EMAIL, ADMIN_PASSWORD = "admin@example.com", "correct horse battery staple"
#: Where the tests leave their screenshots, one folder a backend (var/ is not committed).
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "test-screenshots" / "console"
Page = Any  # playwright.sync_api.Page; imported only where chromium is there
#: Straight to the service, whatever proxy the environment configures.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def chromium() -> str:
    """The chromium executable; else skip the test, or fail it in CI."""
    problem = ""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = "Playwright is not installed (the dev extra: `make install`)"
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and not problem:
        problem = "chromium is not installed (`make install` runs apt-get install chromium)"
    if not problem and found:
        return found
    if is_true(os.environ.get("CI")):
        pytest.fail(f"The console's browser tests are mandatory in CI and {problem}")
    pytest.skip(f"Console browser tests skipped: {problem}")


@dataclass
class Served:
    """A running `tracepoint serve` for the browser, and where its mail goes."""

    url: str
    backend: str
    mail_dir: Path
    shots: Path

    def api(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = ADMIN_TOKEN,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """Call the service as an API client: (status, decoded JSON body or text)."""
        data = (
            body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
        )
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with _DIRECT.open(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, raw.decode()

    def mail_to(self, address: str, seconds: float = 10.0) -> EmailMessage:
        """The newest mail to `address` (the service writes mail as .eml files)."""
        found: list[EmailMessage] = []

        def arrived() -> bool:
            found.clear()
            for path in sorted(self.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime):
                mail = message_from_bytes(path.read_bytes(), policy=policy.default)
                if mail["To"] == address:
                    found.append(mail)  # type: ignore[arg-type]
            return bool(found)

        assert wait_for(arrived, seconds), f"no mail to {address} in {self.mail_dir}"
        return found[-1]

    def link_in(self, mail: EmailMessage, page: str) -> str:
        """The link to a console page in a mail, as a person reads it."""
        body = mail.get_body(preferencelist=("plain", "html"))
        assert body is not None
        text = body.get_content()
        match = re.search(re.escape(f"{self.url}/console/{page}") + r"\?token=[^\s\"<]+", text)
        assert match, text
        return match.group()


def _environment(
    database_url: str, port: int, var: Path, more: dict[str, str] | None = None
) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPOINT_")}
    environment.update(
        {
            "TRACEPOINT_DATABASE_URL": database_url,
            "TRACEPOINT_PORT": str(port),
            "TRACEPOINT_SECRET": "console-test-secret",
            "TRACEPOINT_ADMIN_EMAIL": ADMIN_EMAIL,
            "TRACEPOINT_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "TRACEPOINT_ADMIN_TOKEN": ADMIN_TOKEN,
            "TRACEPOINT_BOOTSTRAP_CREDENTIALS_FILE": str(var / "bootstrap-admin.txt"),
            "TRACEPOINT_MAIL_DIR": str(var / "mail"),
            "TRACEPOINT_UPLOADS_DIR": str(var / "uploads"),
            "TRACEPOINT_RUN_DIR": str(var / "run"),
            "TRACEPOINT_CAPTURE_WORKERS": "0",
            "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
            "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
            "TRACEPOINT_PROJECTION_POLL_INTERVAL": "0.05",
            "TRACEPOINT_PUBLIC_REGISTRATION": "true",
            "TRACEPOINT_BACKGROUND_WORK": "false",
            **(more or {}),
        }
    )
    return environment


@contextlib.contextmanager
def serve(
    backend: str, folder: Path, environment: dict[str, str] | None = None, port: int = 0
) -> Iterator[Served]:
    """`tracepoint serve` on a new database of `backend` until the block ends, with
    `environment` added to the test settings (on `port`, else a free one)."""
    port = port or free_port()
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'tracepoint.db'}"
    else:
        url = run_database("console")
    log = folder / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(CONSOLE_SCRIPT), "serve"],
            env=_environment(url, port, folder, environment),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_for(lambda: process.poll() is not None or answers(f"{base}/server/ping"), 60):
            raise TimeoutError(f"the service did not start:\n{log.read_text()}")
        if process.poll() is not None:
            raise RuntimeError(f"the service exited:\n{log.read_text()}")
        shots = SCREENSHOTS / backend
        if environment is None:  # the module's own service: a fresh set of screenshots
            shutil.rmtree(shots, ignore_errors=True)
        shots.mkdir(parents=True, exist_ok=True)
        yield Served(base, backend, folder / "mail", shots)
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def shot(page: Page, served: Served, name: str) -> None:
    page.screenshot(path=str(served.shots / f"{name}.png"), full_page=True)


def make_user(served: Served, email: str, password: str) -> None:
    """An active user with the bootstrap admin's role."""
    _, me = served.api("GET", "/users/me?fields=role")
    user = {"email": email, "password": password, "role": me["data"]["role"]}
    status, body = served.api("POST", "/users", user)
    assert status in (200, 204), body


def sign_in(page: Page, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> None:
    page.goto("/console/")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("#sign-in button[type=submit]")
    page.wait_for_selector("#sign-out", state="visible")
