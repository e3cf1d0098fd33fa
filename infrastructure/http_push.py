"""POSTing documents to partners (outbound flows, webhooks): one shared HTTP client."""

import asyncio
import socket
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp


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
        """4xx: the partner will not take this document as it is; retrying will not help."""
        return self.status is not None and 400 <= self.status < 500


class HttpPush:
    """Sends documents with aiohttp; the session is made on first use, on the event loop."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None

    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str], seconds: float
    ) -> PushResult:
        """POST `body` to `url`; never raises for network trouble, which the result says."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
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
        except OSError as exc:
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
    except OSError:
        return []
    return sorted({str(info[4][0]) for info in infos})


def resolve_host_now(host: str) -> list[str]:
    """`resolve_host` for code that runs off the event loop."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return []
    return sorted({str(info[4][0]) for info in infos})
