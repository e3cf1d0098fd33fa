"""How background work lives through a database outage: quietly, backing off, with one
log line when it starts and one when it ends, never a traceback per poll."""

import logging
import time

from application.service.errors import as_unavailable

log = logging.getLogger(__name__)

#: The longest wait between tries during an outage, in seconds: recovery is noticed
#: within this long of the database's return.
MAX_BACKOFF = 5.0


class OutageWatch:
    """One worker's view of outages: whether it is in one, and how long to wait."""

    def __init__(self, worker: str, base_delay: float = 0.5) -> None:
        self.worker = worker
        self._base = max(base_delay, 0.05)
        self._since: float | None = None
        self._failures = 0

    @property
    def down(self) -> bool:
        """Whether the last try met an outage."""
        return self._since is not None

    def failed(self, exc: BaseException) -> bool:
        """Note a failure; True when it is an outage (logged once per outage), False when
        it is some other error, which the caller reports as before."""
        unavailable = as_unavailable(exc)
        if unavailable is None:
            return False
        self._failures += 1
        if self._since is None:
            self._since = time.monotonic()
            log.warning(
                "%s: the database is unavailable (%s); retrying quietly until it is back",
                self.worker,
                _reason(exc),
            )
        return True

    def succeeded(self) -> None:
        """Note a try that got through; logs the end of an outage."""
        if self._since is None:
            return
        log.warning(
            "%s: the database is back after %.1f s; working again",
            self.worker,
            time.monotonic() - self._since,
        )
        self._since = None
        self._failures = 0

    def delay(self) -> float:
        """Seconds to wait before the next try: doubling through an outage, up to a cap."""
        if self._failures == 0:
            return 0.0
        return float(min(self._base * 2 ** (self._failures - 1), MAX_BACKOFF))


def _reason(exc: BaseException) -> str:
    """The innermost message of an error chain, on one line (the driver's own words)."""
    current = exc
    for _ in range(20):  # chains are short; the bound guards against a cycle
        inner = current.__cause__ or current.__context__
        if inner is None:
            break
        current = inner
    text = " ".join(str(current).split())
    return f"{type(current).__name__}: {text}" if text else type(current).__name__
