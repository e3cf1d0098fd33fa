"""Who is calling: the accountability of a user or of the public, with the policies that
apply to the request's address."""

import dataclasses
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from application.service.blocking import BlockingRunner
from application.service.log_checked_cache import MISSING, LogCheckedCache
from domain.access.policies import Accountability, PolicyGrant, applicable
from projections.access.reader import AccessReader, UserCredentials

T = TypeVar("T")


class AccessService:
    """Builds a request's accountability from the access-control tables, through the
    process's `LogCheckedCache` when it has one (`application.service.log_checked_cache`)."""

    def __init__(
        self, reader: AccessReader, blocking: BlockingRunner, cache: LogCheckedCache | None = None
    ) -> None:
        self.reader = reader
        self._blocking = blocking
        self._cache = cache

    async def public(self, ip: str | None) -> Accountability:
        """An unauthenticated caller: the public policies only."""
        return await self._resolve(None, ip, None)

    async def for_user(
        self, user: UserCredentials, ip: str | None, via: str, session: str | None = None
    ) -> Accountability:
        """A signed-in user: the policies of their role chain and their own."""
        caller = await self._resolve(user, ip, via)
        return dataclasses.replace(caller, session=session) if session else caller

    async def user(self, user_id: str) -> UserCredentials | None:
        """The user with this id, without their password hash, or None."""
        return await self._cached(("user", user_id), self._user, user_id)

    async def user_by_token(self, token_hash: str) -> UserCredentials | None:
        """The user whose static token has this digest, without their password hash, or
        None."""
        return await self._cached(("token", token_hash), self._user_by_token, token_hash)

    async def of_user(self, user_id: str) -> Accountability | None:
        """What an active user may do, acting on their own (a flow they made): None when
        the user is gone or not active."""
        user = await self.user(user_id)
        if user is None or user.status != "active":
            return None
        return await self.for_user(user, None, "background")

    async def _resolve(
        self, user: UserCredentials | None, ip: str | None, via: str | None
    ) -> Accountability:
        user_id = user.id if user else None
        role = user.role if user is not None else None
        chain, grants = await self._cached(("grants", user_id, role), self._grants, user_id, role)
        return Accountability(
            user=user_id,
            role=role,
            account=user.account if user else None,
            tenant_bound=self.reader.multi_tenant,
            roles=chain,
            policies=applicable(grants, ip),
            ip=ip,
            via=via,
            tfa_enabled=bool(user and user.tfa_secret),
        )

    async def _cached(self, key: Hashable, read: Callable[..., T], *args: Any) -> T:
        """What `read(*args)` answers, kept per process: a request whose caller is kept
        (and whose log has not moved) waits on no thread and no database."""
        if self._cache is None:
            return await self._blocking.run(read, *args)
        value: T = self._cache.get(key)
        if value is not MISSING:
            return value
        return await self._blocking.run(self._cache.read_through, key, read, *args)

    def _grants(
        self, user_id: str | None, role: str | None
    ) -> tuple[tuple[str, ...], tuple[PolicyGrant, ...]]:
        chain, grants = self.reader.grants(user_id, role)
        # A tuple: what is kept is shared by every request of the caller.
        return chain, tuple(grants)

    def _user(self, user_id: str) -> UserCredentials | None:
        return _without_password(self.reader.user(user_id))

    def _user_by_token(self, token_hash: str) -> UserCredentials | None:
        return _without_password(self.reader.user_by_token_hash(token_hash))


def _without_password(user: UserCredentials | None) -> UserCredentials | None:
    """Resolving a caller never needs the password hash; what is kept in memory for long
    should not hold it."""
    return None if user is None else dataclasses.replace(user, password_hash=None)
