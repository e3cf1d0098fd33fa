"""Slows down guessing and flooding: attempts per client address, and failures per
account."""

import ipaddress
import threading
import time
from collections import deque
from collections.abc import Callable


def _address_key(address: str | None) -> str:
    """IPv4 addresses count one by one; IPv6 ones by their /64, which one client holds."""
    if not address:
        return ""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


class Throttle:
    """Counts attempts (logins, mail-sending requests) in this process.

    Per address: at most `per_minute` failures in any sliding minute. Every attempt takes
    a place before its password is checked, so attempts sent at once cannot all pass the
    limit; a successful one gives its place back. Per account: consecutive failures,
    reset by a success; the caller suspends the account once `per_account` is reached.
    """

    def __init__(
        self,
        per_minute: int,
        per_account: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self._per_account = per_account
        self._clock = clock
        self._lock = threading.Lock()
        self._by_address: dict[str, deque[float]] = {}
        self._by_account: dict[str, int] = {}

    def attempt(self, address: str | None) -> int:
        """Take a place for an attempt from `address`; the seconds to wait instead (and
        no place taken) when its places for this minute are used up."""
        with self._lock:
            attempts = self._recent(_address_key(address))
            if len(attempts) >= self.per_minute:
                return max(1, int(attempts[0] + 60 - self._clock() + 0.999))
            attempts.append(self._clock())
            return 0

    def failed(self, account: str | None) -> bool:
        """The attempt failed; True when the account has now failed too often in a row
        (never when no account limit was set)."""
        if account is None or not self._per_account:
            return False
        with self._lock:
            count = self._by_account.get(account, 0) + 1
            self._by_account[account] = count
            return count >= self._per_account

    def release(self, address: str | None) -> None:
        """The attempt did not fail (a right password still waiting for its one-time
        password): its place is given back."""
        with self._lock:
            attempts = self._recent(_address_key(address))
            if attempts:
                attempts.pop()

    def succeeded(self, address: str | None, account: str) -> None:
        """The attempt succeeded: its place is given back and the account's count reset."""
        self.release(address)
        with self._lock:
            self._by_account.pop(account, None)

    def _recent(self, key: str) -> deque[float]:
        attempts = self._by_address.setdefault(key, deque())
        horizon = self._clock() - 60
        while attempts and attempts[0] <= horizon:
            attempts.popleft()
        if len(self._by_address) > 100_000:
            # Addresses that stopped trying long ago need no memory.
            for stale in [k for k, v in self._by_address.items() if not v and k != key]:
                del self._by_address[stale]
        return attempts
