"""Who is calling: the accountability of a user or of the public, with the policies that
apply to the request's address."""

import dataclasses

from application.blocking import BlockingRunner
from domain.access.policies import Accountability, applicable
from projections.access.reader import AccessReader, UserCredentials


class AccessService:
    """Builds a request's accountability from the access-control tables."""

    def __init__(self, reader: AccessReader, blocking: BlockingRunner) -> None:
        self.reader = reader
        self._blocking = blocking

    async def public(self, ip: str | None) -> Accountability:
        """An unauthenticated caller: the public policies only."""
        return await self._blocking.run(self._resolve, None, ip, None)

    async def for_user(
        self, user: UserCredentials, ip: str | None, via: str, session: str | None = None
    ) -> Accountability:
        """A signed-in user: the policies of their role chain and their own."""
        caller = await self._blocking.run(self._resolve, user, ip, via)
        return dataclasses.replace(caller, session=session) if session else caller

    async def of_user(self, user_id: str) -> Accountability | None:
        """What an active user may do, acting on their own (a flow they made): None when
        the user is gone or not active."""
        user = await self._blocking.run(self.reader.user, user_id)
        if user is None or user.status != "active":
            return None
        return await self.for_user(user, None, "background")

    def _resolve(
        self, user: UserCredentials | None, ip: str | None, via: str | None
    ) -> Accountability:
        role = user.role if user is not None else None
        chain, grants = self.reader.grants(user.id if user else None, role)
        return Accountability(
            user=user.id if user else None,
            role=role,
            account=user.account if user else None,
            tenant_bound=self.reader.multi_tenant,
            roles=chain,
            policies=applicable(grants, ip),
            ip=ip,
            via=via,
            tfa_enabled=bool(user and user.tfa_secret),
        )
