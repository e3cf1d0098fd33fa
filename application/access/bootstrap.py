"""A fresh installation's first records: the public policy, the administrator policy and
role, and the bootstrap admin who holds them."""

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from domain.access.collections import ACCESS, POLICIES, ROLES, USERS, normalise_email
from domain.access.policies import PUBLIC_POLICY_ID
from domain.access.user import User
from domain.collections.coercion import format_datetime
from domain.collections.schema import Collection
from domain.records.record import Record
from domain.records.unique_value import UniqueValue
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.passwords import Passwords, hash_token


def _fixed_id(name: str) -> str:
    # Fixed ids: processes starting together create these records once.
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:tracepoint:{name}"))


BOOTSTRAP_ADMIN_ID = _fixed_id("bootstrap-admin")
ADMIN_POLICY_ID = _fixed_id("administrator-policy")
ADMIN_ROLE_ID = _fixed_id("administrator-role")


@dataclass(frozen=True)
class BootstrapCredentials:
    """The first admin's credentials, shown once when the service generated them."""

    email: str
    password: str | None
    token: str | None
    generated: bool


class AdminBootstrap:
    """Creates the first records of a fresh installation."""

    def __init__(
        self,
        store: EventStore,
        passwords: Passwords,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._passwords = passwords
        self._clock = clock

    def ensure_admin(
        self, email: str | None, password: str | None, token: str | None
    ) -> BootstrapCredentials | None:
        """Create the access-control records and the bootstrap admin unless they exist;
        generate what is not given. Returns the credentials when this call created them.

        An installation from before records existed keeps its admin's credentials.
        """
        try:
            self._store.get(Record.create_id(USERS.name, BOOTSTRAP_ADMIN_ID))
            return None
        except KeyError:
            pass
        at = format_datetime(self._clock())
        legacy = self._legacy_admin()
        if legacy is not None:
            email, password_hash, token_hash = legacy.email, legacy.password_hash, legacy.token_hash
            credentials = None
        else:
            generated = not (email and password and token)
            email = email or "admin@tracepoint.local"
            password = password or secrets.token_urlsafe(18)
            token = token or secrets.token_urlsafe(32)
            password_hash, token_hash = self._passwords.hash(password), hash_token(token)
            credentials = BootstrapCredentials(email, password, token, generated)
        email = normalise_email(email)
        records = [
            _record(POLICIES, PUBLIC_POLICY_ID, at, name="Public", icon="public"),
            _record(ACCESS, _fixed_id("public-access"), at, policy=PUBLIC_POLICY_ID),
            _record(
                POLICIES,
                ADMIN_POLICY_ID,
                at,
                name="Administrator",
                icon="verified",
                admin_access=True,
                app_access=True,
            ),
            _record(ROLES, ADMIN_ROLE_ID, at, name="Administrator", icon="verified"),
            _record(
                ACCESS,
                _fixed_id("administrator-access"),
                at,
                role=ADMIN_ROLE_ID,
                policy=ADMIN_POLICY_ID,
            ),
            _record(
                USERS,
                BOOTSTRAP_ADMIN_ID,
                at,
                email=email,
                first_name="Admin",
                last_name="User",
                password=password_hash,
                token=token_hash,
                role=ADMIN_ROLE_ID,
                provider="default",
            ),
        ]
        try:
            self._store.save(
                *records,
                UniqueValue(USERS.name, "email", email, BOOTSTRAP_ADMIN_ID),
                *(
                    [UniqueValue(USERS.name, "token", token_hash, BOOTSTRAP_ADMIN_ID)]
                    if token_hash
                    else []
                ),
            )
        except DuplicateAggregate:
            return None
        return credentials

    def _legacy_admin(self) -> Any:
        try:
            return self._store.get(User.create_id(BOOTSTRAP_ADMIN_ID))
        except KeyError:
            return None


def _record(collection: Collection, key: str, at: str, **values: Any) -> Record:
    values = {**collection.defaults(), **values, collection.primary_key: key}
    return Record(collection.name, key, values, None, at)
