"""Slows down guessing and flooding: attempts per client address, and failures in a row
per account, counted in the database for every process alike."""

import ipaddress
import math
import time
from collections.abc import Callable

from application.blocking import BlockingRunner
from infrastructure.attempt_store import AttemptStore

#: The sliding window of the per-address limits, in seconds.
WINDOW = 60.0


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
    """Limits one kind of attempt (`scope`: logins, mail-sending requests).

    Per address: at most `per_minute` attempts in any sliding minute. An attempt takes
    its place before it is checked, so attempts sent at once cannot all pass the limit;
    one that succeeds gives its place back. Per account: failures in a row, reset by a
    success; the caller suspends the account once `per_account` is reached (0: never).
    """

    def __init__(
        self,
        store: AttemptStore,
        blocking: BlockingRunner,
        scope: str,
        per_minute: int,
        per_account: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._blocking = blocking
        self._scope = scope
        self.per_minute = per_minute
        self._per_account = per_account
        self._clock = clock

    async def attempt(self, address: str | None) -> int:
        """Take a place for an attempt from `address`; the whole seconds to wait instead
        (and no place taken) when its places for this minute are used up."""
        wait = await self._blocking.run(
            self._store.take,
            self._scope,
            _address_key(address),
            self._clock(),
            WINDOW,
            self.per_minute,
        )
        return math.ceil(wait) if wait else 0

    async def release(self, address: str | None) -> None:
        """The attempt did not fail (a right password still waiting for its one-time
        password): its place is given back."""
        await self._blocking.run(self._store.give_back, self._scope, _address_key(address))

    async def failed(self, account: str | None) -> bool:
        """The attempt failed; True when the account has now failed too often in a row."""
        if account is None or not self._per_account:
            return False
        return await self._blocking.run(self._store.fail, account) >= self._per_account

    async def succeeded(self, address: str | None, account: str) -> None:
        """The attempt succeeded: its place is given back and the account's count reset."""
        await self.release(address)
        await self._blocking.run(self._store.clear, account)
