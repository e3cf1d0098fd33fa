"""POSTing documents to partners (outbound flows, webhooks): one shared HTTP client."""

import asyncio
import ipaddress
import socket
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp
from aiohttp.abc import ResolveResult
from aiohttp.resolver import ThreadedResolver

from domain.access.outbound_targets import AllowList, internal


@dataclass(frozen=True)
class PushResult:
    """What the partner answered: an HTTP status, or no answer and why."""

    status: int | None
    error: str | None = None
    #: The start of the partner's answer, for the delivery log.
    body: str = ""

    @property
    def accepted(self) -> bool:
        """2xx: the partner took the document."""
        return self.status is not None and 200 <= self.status < 300

    @property
    def refused(self) -> bool:
        """4xx but for timeouts and rate limits: the partner will not take this document
        as it is; retrying will not help."""
        return self.status is not None and 400 <= self.status < 500 and self.status not in _LATER


#: Client errors that mean "not now": request timeout, too early, too many requests.
_LATER = frozenset({408, 425, 429})


class GuardedResolver(ThreadedResolver):
    """Resolves host names for the push client and drops internal addresses (unless
    allowed): what was checked is what is connected to, so a name that resolves
    outward when checked and inward when used (DNS rebinding) reaches nothing."""

    def __init__(self, allowed: AllowList) -> None:
        super().__init__()
        self._allowed = allowed

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        """The host's addresses that may be reached; OSError when none may."""
        found = await super().resolve(host, port, family)
        if self._allowed.allows_host(host):
            return found
        kept = []
        for result in found:
            address = ipaddress.ip_address(str(result["host"]).split("%", 1)[0])
            if not internal(address) or self._allowed.allows_address(address):
                kept.append(result)
        if not kept:
            raise OSError(f"{host} resolves only to internal addresses")
        return kept


class HttpPush:
    """Sends documents with aiohttp; the session is made on first use, on the event loop."""

    def __init__(self, allowed: AllowList | None = None) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._allowed = allowed

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], seconds: float
    ) -> PushResult:
        """POST `body` to `url`; never raises for network trouble, which the result says."""
        if self._session is None or self._session.closed:
            connector = (
                aiohttp.TCPConnector(resolver=GuardedResolver(self._allowed))
                if self._allowed is not None
                else None
            )
            self._session = aiohttp.ClientSession(connector=connector)
        try:
            async with self._session.post(
                url,
                data=body,
                headers=dict(headers),
                timeout=aiohttp.ClientTimeout(total=seconds),
                allow_redirects=False,
            ) as response:
                text = (await response.content.read(1000)).decode("utf-8", "replace")
                return PushResult(response.status, None if response.status < 400 else text, text)
        except TimeoutError:
            return PushResult(None, f"no answer within {seconds:g} s")
        except aiohttp.ClientError as exc:
            return PushResult(None, f"{type(exc).__name__}: {exc}".strip())
        except asyncio.CancelledError:
            raise
        except (OSError, ValueError) as exc:
            # ValueError: a header aiohttp will not send (a control character).
            return PushResult(None, f"{type(exc).__name__}: {exc}".strip())

    async def close(self) -> None:
        """Close the connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None


async def resolve_host(host: str) -> list[str]:
    """The addresses a host name resolves to (empty when it does not resolve)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


def resolve_host_now(host: str) -> list[str]:
    """`resolve_host` for code that runs off the event loop."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})
