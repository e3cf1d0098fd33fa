"""Who is calling: static bearer tokens resolved to users."""

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from application.blocking import BlockingRunner
from application.read_model_follower import ReadModelFollower
from domain.access.user import User
from domain.epcis.timestamps import format_record_time
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.passwords import hash_password, hash_token
from projections.readers import ReadModels

#: The bootstrap admin's id is fixed, so processes starting together create it once.
BOOTSTRAP_ADMIN_ID = str(uuid.uuid5(uuid.NAMESPACE_URL, "urn:tracepoint:bootstrap-admin"))


@dataclass(frozen=True)
class Principal:
    """An authenticated caller."""

    user_id: str
    email: str
    admin_access: bool


@dataclass(frozen=True)
class BootstrapCredentials:
    """The first admin's credentials, shown once when the service generated them."""

    email: str
    password: str | None
    token: str | None
    generated: bool


class Authenticator:
    """Resolves static tokens to active users."""

    def __init__(self, read_models: ReadModels, blocking: BlockingRunner) -> None:
        self._read_models = read_models
        self._blocking = blocking

    async def by_static_token(self, token: str) -> Principal | None:
        """The active user holding this static token, or None."""
        if not token:
            return None
        row = await self._blocking.run(self._read_models.user_by_token_hash, hash_token(token))
        if row is None or row.status != "active":
            return None
        return Principal(row.id, row.email, row.admin_access)


class AdminBootstrap:
    """Creates the first admin on a fresh installation."""

    def __init__(
        self,
        store: EventStore,
        read_models: ReadModels,
        follower: ReadModelFollower,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._read_models = read_models
        self._follower = follower
        self._clock = clock

    def ensure_admin(
        self, email: str | None, password: str | None, token: str | None
    ) -> BootstrapCredentials | None:
        """Register the bootstrap admin unless users exist; generate what is not given.

        Returns the credentials when this call created the admin, else None.
        """
        try:
            self._store.get(User.create_id(BOOTSTRAP_ADMIN_ID))
            return None
        except KeyError:
            pass
        generated = not (email and password and token)
        email = email or "admin@tracepoint.local"
        password = password or secrets.token_urlsafe(18)
        token = token or secrets.token_urlsafe(32)
        user = User(
            user_id=BOOTSTRAP_ADMIN_ID,
            email=email,
            password_hash=hash_password(password),
            token_hash=hash_token(token),
            admin_access=True,
            status="active",
            registered_at=format_record_time(self._clock()),
        )
        try:
            self._store.save(user)
        except DuplicateAggregate:
            return None
        return BootstrapCredentials(email, password, token, generated)
