"""Slows down guessing and flooding: attempts per client address, and failures in a row
per account and per address, counted in the database for every process alike."""

import ipaddress
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from application.service.blocking import BlockingRunner
from application.service.errors import RequestsExceeded
from domain.access.backoff import Backoff
from infrastructure.attempt_store import AttemptStore

#: The sliding window of the per-address limits, in seconds.
WINDOW = 60.0

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class SignInLocks:
    """When failures in a row lock the password sign-in of an account (any address),
    and that of a client address (any account)."""

    account: Backoff
    address: Backoff


@dataclass(frozen=True)
class Attempt:
    """A sign-in attempt that was let in, its failure counted ahead at `at`."""

    address: str | None
    subjects: tuple[str, ...]
    at: float


class Throttle:
    """Limits one kind of attempt (`scope`: logins, mail-sending requests, scans).

    Per address: at most `per_minute` attempts in any sliding minute. An attempt takes
    its place before it is checked, so attempts sent at once cannot all pass the limit;
    one that succeeds gives its place back. With `locks` (sign-in), failures in a row
    lock the account and the address for a while (`begin`); a success unlocks the
    account.
    """

    def __init__(
        self,
        store: AttemptStore,
        blocking: BlockingRunner,
        scope: str,
        per_minute: int,
        locks: SignInLocks | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._blocking = blocking
        self._scope = scope
        self.per_minute = per_minute
        self._locks = locks
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
        """The attempt did not fail: its place is given back."""
        await self._blocking.run(self._store.give_back, self._scope, _address_key(address))

    async def begin(self, address: str | None, account: str) -> Attempt:
        """Let a sign-in to `account` from `address` in, counted as a failure until it
        proves otherwise; RequestsExceeded while either is locked (whatever the password:
        else the lock would tell a guesser when it guessed right) or the address used up
        its minute."""
        assert self._locks is not None, "only sign-in throttles lock"
        now = self._clock()
        rules = (
            (f"account:{account}", self._locks.account),
            (f"address:{_address_key(address)}", self._locks.address),
        )
        locked = await self._blocking.run(self._store.fail_ahead, self._scope, rules, now)
        if locked:
            raise RequestsExceeded(math.ceil(locked), self._locks.account.after)
        attempt = Attempt(address, tuple(subject for subject, _ in rules), now)
        wait = await self.attempt(address)
        if wait:
            await self._blocking.run(self._store.withdraw, self._scope, attempt.subjects, now)
            raise RequestsExceeded(wait, self.per_minute)
        return attempt

    async def withdraw(self, attempt: Attempt) -> None:
        """The attempt neither failed nor succeeded (a right password still waiting for
        its one-time password): its place and its failure are given back."""
        await self.release(attempt.address)
        await self._blocking.run(self._store.withdraw, self._scope, attempt.subjects, attempt.at)

    async def failed(self, attempt: Attempt, account: str) -> None:
        """The attempt failed (its failure was counted by `begin`): one warning for each
        lock that failure started; `account` names the account in it (never an e-mail)."""
        assert self._locks is not None, "only sign-in throttles lock"
        rules = (("account", account, self._locks.account), ("address", None, self._locks.address))
        for subject, (kind, name, rule) in zip(attempt.subjects, rules, strict=True):
            failures, until = await self._blocking.run(self._store.failures, self._scope, subject)
            seconds = rule.lock_seconds(failures)
            # A lock ending exactly then was set by this failure, not by a concurrent one.
            if seconds and math.isclose(until, attempt.at + seconds, abs_tol=1e-6):
                label = name or subject.removeprefix("address:")
                log.warning(
                    "Password sign-in of %s %s locked for %d s after %d failures in a row",
                    kind,
                    label,
                    seconds,
                    failures,
                )

    async def unlock(self, account: str) -> None:
        """Whoever proved control of the account's mailbox (a password reset) may sign in
        at once: the account's lock and failures go (its addresses' stay)."""
        await self._blocking.run(self._store.clear, self._scope, [f"account:{account}"])

    async def succeeded(self, attempt: Attempt) -> None:
        """The attempt succeeded: its place is given back, the account's failures in a
        row start again from none, and the address loses only this attempt's failure."""
        await self.release(attempt.address)
        # Not the address's earlier failures: someone who signs in to an account of
        # their own every few guesses would otherwise never be locked.
        accounts = tuple(s for s in attempt.subjects if s.startswith("account:"))
        others = tuple(s for s in attempt.subjects if s not in accounts)
        await self._blocking.run(self._store.withdraw, self._scope, others, attempt.at)
        await self._blocking.run(self._store.clear, self._scope, accounts)
