"""No secret in any log line: a full flow through a real `tracepoint serve`, whose whole
output (access log, application log, start and stop) is then searched for every secret."""

import asyncio
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from email import message_from_bytes
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pyotp
import pytest

from tests.services import free_port

TRACEPOINT = Path(sys.executable).parent / "tracepoint"
ADMIN_EMAIL = "admin@example.com"


def secret(name: str) -> str:
    """A secret no log line could contain by chance."""
    return f"{name}-{secrets.token_hex(8)}"


class Flow:
    """Calls to the service, remembering every secret they use."""

    def __init__(self, http: aiohttp.ClientSession, base: str, mail_dir: Path) -> None:
        self.http, self.base, self.mail_dir = http, base, mail_dir
        self.used: set[str] = set()

    def keep(self, *values: str) -> None:
        self.used.update(v for v in values if v)

    async def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, **kw: Any
    ) -> tuple[int, Any]:
        headers = dict(kw.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            kw["data"] = orjson.dumps(body)
            headers.setdefault("Content-Type", "application/json")
        async with self.http.request(method, self.base + path, headers=headers, **kw) as r:
            text = await r.text()
            return r.status, orjson.loads(text) if text.startswith(("{", "[")) else text

    async def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        status, answer = await self.call(method, path, body, **kw)
        assert status < 300, (method, path, status, answer)
        return answer.get("data", answer) if isinstance(answer, dict) else answer

    async def mailed_token(self, to: str) -> str:
        """The token of the link last mailed to this address (read from the .eml files)."""
        for _ in range(100):
            for path in sorted(self.mail_dir.glob("*.eml"), key=lambda p: p.stat().st_mtime):
                mail = message_from_bytes(path.read_bytes())
                if mail["To"] != to:
                    continue
                path.unlink()
                part = next(p for p in mail.walk() if p.get_content_type() == "text/plain")
                payload = part.get_payload(decode=True)
                assert isinstance(payload, bytes)
                found = re.search(r"[?&]token=([\w.\-]+)", payload.decode())
                assert found is not None
                self.keep(found.group(1))
                return found.group(1)
            await asyncio.sleep(0.1)
        raise AssertionError(f"no mail to {to}")


def serve(
    database_url: str, folder: Path, log_format: str, admin_password: str, admin_token: str
) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    env = {
        **os.environ,
        "TRACEPOINT_DATABASE_URL": database_url,
        "TRACEPOINT_HOST": "127.0.0.1",
        "TRACEPOINT_PORT": str(port),
        "PUBLIC_URL": f"http://127.0.0.1:{port}",
        "TRACEPOINT_SECRET": secret("signing"),
        "TRACEPOINT_ADMIN_EMAIL": ADMIN_EMAIL,
        "TRACEPOINT_ADMIN_PASSWORD": admin_password,
        "TRACEPOINT_ADMIN_TOKEN": admin_token,
        "TRACEPOINT_MAIL_DIR": str(folder / "mail"),
        "TRACEPOINT_UPLOADS_DIR": str(folder / "uploads"),
        "TRACEPOINT_RUN_DIR": str(folder / "run"),
        "TRACEPOINT_CAPTURE_WORKERS": "0",
        "TRACEPOINT_PROJECTION_POLL_INTERVAL": "0.05",
        "TRACEPOINT_PASSWORD_HASH_TIME_COST": "1",
        "TRACEPOINT_PASSWORD_HASH_MEMORY_KIB": "32",
        "TRACEPOINT_OUTBOUND_ALLOW_LIST": "127.0.0.0/8",
        "TRACEPOINT_LOG_FORMAT": log_format,
        # Everything anyone logs, aiohttp's and the drivers' debug records included.
        "TRACEPOINT_LOG_LEVEL": "DEBUG",
    }
    log = folder / "service.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(TRACEPOINT), "serve"], stdout=out, stderr=subprocess.STDOUT, env=env, cwd=folder
        )
    return process, f"http://127.0.0.1:{port}", log


async def started(http: aiohttp.ClientSession, base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the service ended"
        try:
            async with http.get(base + "/server/ping") as response:
                if response.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.2)
    raise AssertionError("the service did not start")


CAPTURE = {
    "@context": ["https://ref.gs1.org/standards/epcis/epcis-context.jsonld"],
    "type": "EPCISDocument",
    "schemaVersion": "2.0",
    "creationDate": "2024-01-01T00:00:00Z",
    "epcisBody": {
        "eventList": [
            {
                "type": "ObjectEvent",
                "eventTime": "2024-01-01T00:00:00Z",
                "eventTimeZoneOffset": "+00:00",
                "epcList": ["urn:epc:id:sgtin:0614141.107346.2018"],
                "action": "OBSERVE",
                "bizStep": "shipping",
            }
        ]
    },
}


async def full_flow(flow: Flow, admin_password: str, admin_token: str) -> None:
    """Sign-in, refresh, ?access_token=, cookies, static tokens, reset, invite, TFA, a
    webhook subscription with signatureToken, and requests that fail."""
    flow.keep(admin_password, admin_token)
    signed_in = await flow.ok(
        "POST", "/auth/login", {"email": ADMIN_EMAIL, "password": admin_password}
    )
    flow.keep(signed_in["access_token"], signed_in["refresh_token"])
    refreshed = await flow.ok(
        "POST", "/auth/refresh", {"refresh_token": signed_in["refresh_token"], "mode": "json"}
    )
    jwt = refreshed["access_token"]
    flow.keep(jwt, refreshed["refresh_token"])
    await flow.ok("GET", f"/users/me?access_token={jwt}&fields=id")
    await flow.ok("GET", "/users/me", token=admin_token)
    await flow.ok("GET", "/v2/epcis/events", token=admin_token)
    await flow.call("GET", f"/v2/epcis/events?access_token={admin_token}")

    session = await flow.call(
        "POST", "/auth/login", {"email": ADMIN_EMAIL, "password": admin_password, "mode": "session"}
    )
    assert session[0] == 200
    for cookie in flow.http.cookie_jar:
        flow.keep(cookie.value)
    await flow.ok("GET", "/users/me")
    flow.http.cookie_jar.clear()

    role = await flow.ok("POST", "/roles", {"name": "partners"}, token=jwt)
    user_password, user_token = secret("user-password"), secret("user-token")
    flow.keep(user_password, user_token)
    await flow.ok(
        "POST",
        "/users",
        {"email": "user@example.com", "password": user_password, "token": user_token},
        token=admin_token,
    )
    await flow.call("GET", "/users/me", token=user_token)

    await flow.ok("POST", "/auth/password/request", {"email": "user@example.com"})
    reset = await flow.mailed_token("user@example.com")
    await flow.call("GET", f"/admin/reset-password?token={reset}")
    new_password = secret("new-password")
    flow.keep(new_password)
    await flow.ok("POST", "/auth/password/reset", {"token": reset, "password": new_password})

    await flow.ok(
        "POST", "/users/invite", {"email": "partner@example.com", "role": role["id"]}, token=jwt
    )
    invite = await flow.mailed_token("partner@example.com")
    await flow.call("GET", f"/admin/accept-invite?token={invite}")
    partner_password = secret("partner-password")
    flow.keep(partner_password)
    # As a browser sends it: the form of the invitation page.
    form = {"token": invite, "password": partner_password, "password_confirm": partner_password}
    async with flow.http.post(flow.base + "/users/invite/accept", data=form) as accepted:
        assert accepted.status == 200, await accepted.text()

    generated = await flow.ok(
        "POST", "/users/me/tfa/generate", {"password": new_password}, token=user_token
    )
    totp = pyotp.TOTP(generated["secret"])
    flow.keep(generated["secret"], generated["otpauth_url"])
    otp = totp.now()
    flow.keep(otp)
    await flow.ok(
        "POST",
        "/users/me/tfa/enable",
        {"secret": generated["secret"], "otp": otp},
        token=user_token,
    )
    await flow.ok(
        "POST",
        "/auth/login",
        {"email": "user@example.com", "password": new_password, "otp": totp.now()},
    )

    signature, hook_password = secret("signature"), secret("hook-password")
    flow.keep(signature, hook_password)
    epcis = {"token": admin_token}
    await flow.ok(
        "POST",
        "/v2/epcis/queries",
        {"name": "shipping", "query": {"EQ_bizStep": ["shipping"]}},
        **epcis,
    )
    # A dest with a password is refused; nobody listens at the one accepted: the delivery
    # fails, and the failure is logged.
    port = free_port()
    await flow.call(
        "POST",
        "/v2/epcis/queries/shipping/subscriptions",
        {"dest": f"http://hook:{hook_password}@127.0.0.1:{port}/", "signatureToken": signature},
        **epcis,
    )
    await flow.ok(
        "POST",
        "/v2/epcis/queries/shipping/subscriptions",
        {"dest": f"http://127.0.0.1:{port}/hook", "signatureToken": signature, "stream": True},
        **epcis,
    )
    await flow.ok("POST", "/v2/epcis/capture", CAPTURE, **epcis)

    # Refusals: a wrong password, a wrong code, an unknown token in each place.
    wrong = secret("wrong-password")
    wrong_token = secret("wrong-token")
    flow.keep(wrong, wrong_token)
    await flow.call("POST", "/auth/login", {"email": ADMIN_EMAIL, "password": wrong})
    await flow.call("POST", "/auth/refresh", {"refresh_token": wrong_token})
    await flow.call("GET", f"/users/me?access_token={wrong_token}")
    await flow.call("GET", "/v2/epcis/events", token=wrong_token)
    await flow.call("GET", "/users/me", headers={"Cookie": f"platform_session_token={wrong_token}"})
    await flow.call("POST", "/auth/password/reset", {"token": wrong_token, "password": wrong})
    await flow.call("GET", "/nowhere", headers={"X-Request-Id": f"id {wrong_token}"})
    await asyncio.sleep(1.5)  # the subscription's delivery is tried and fails


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_no_secret_used_in_a_full_flow_appears_in_the_service_output(
    database_url: str, tmp_path: Path, log_format: str
) -> None:
    admin_password, admin_token = secret("admin-password"), secret("admin-token")
    process, base, log = serve(database_url, tmp_path, log_format, admin_password, admin_token)
    try:
        # An unsafe jar: it keeps cookies of an IP address (127.0.0.1).
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            await started(http, base, process)
            flow = Flow(http, base, tmp_path / "mail")
            await full_flow(flow, admin_password, admin_token)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    output = log.read_text()
    assert "/users/me" in output  # the access log was written
    leaked = sorted(s for s in flow.used if s in output)
    assert leaked == [], "\n".join(
        line for line in output.splitlines() if any(s in line for s in leaked)
    )
