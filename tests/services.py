"""Small helpers of the tests that start a service or a server of their own: a free port,
waiting for a condition, and whether a URL answers 200."""

import socket
import time
import urllib.request
from collections.abc import Callable

#: Straight to the service, whatever proxy the environment configures.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    """A TCP port nobody listens on at the moment."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether `condition` became true within `seconds` (checked every 50 ms)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def answers(url: str) -> bool:
    """Whether a GET of `url` (a /server/ping) answers 200 within a second."""
    try:
        with _DIRECT.open(url, timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False
