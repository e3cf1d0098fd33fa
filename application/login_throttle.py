"""Slows down password guessing: failed logins per client address, and per account."""

import threading
import time
from collections import deque
from collections.abc import Callable


class LoginThrottle:
    """Counts failed logins in this process.

    Per address: at most `per_minute` failures in any sliding minute; successful logins
    do not count. Per account: consecutive failures, reset by a success; the caller
    suspends the account once `per_account` is reached.
    """

    def __init__(
        self,
        per_minute: int,
        per_account: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._per_minute = per_minute
        self._per_account = per_account
        self._clock = clock
        self._lock = threading.Lock()
        self._by_address: dict[str, deque[float]] = {}
        self._by_account: dict[str, int] = {}

    def retry_after(self, address: str | None) -> int:
        """Seconds until the address may try again; 0 when it may now."""
        with self._lock:
            failures = self._recent(address)
            if len(failures) < self._per_minute:
                return 0
            return max(1, int(failures[0] + 60 - self._clock() + 0.999))

    @property
    def per_minute(self) -> int:
        """Failed logins an address may make in a minute."""
        return self._per_minute

    def failed(self, address: str | None, account: str | None) -> bool:
        """Count a failure; True when the account has now failed too often in a row."""
        with self._lock:
            self._recent(address).append(self._clock())
            if account is None:
                return False
            count = self._by_account.get(account, 0) + 1
            self._by_account[account] = count
            return count >= self._per_account

    def succeeded(self, account: str) -> None:
        """A successful login resets the account's count."""
        with self._lock:
            self._by_account.pop(account, None)

    def _recent(self, address: str | None) -> deque[float]:
        failures = self._by_address.setdefault(address or "", deque())
        horizon = self._clock() - 60
        while failures and failures[0] <= horizon:
            failures.popleft()
        if len(self._by_address) > 100_000:
            # Addresses that stopped failing long ago need no memory.
            for key in [k for k, v in self._by_address.items() if not v]:
                del self._by_address[key]
        return failures
