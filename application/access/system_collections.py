"""What the access-control and other system collections add to plain item storage."""

import ipaddress
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from application.access.event_scope import EPCIS_EVENTS, EventScopes
from application.access.outbox import Outbox
from application.items.rules import CollectionRules, Item
from application.service.blocking import BlockingRunner
from application.service.errors import InvalidPayload
from domain.access.collections import ACTIONS, normalise_email
from domain.access.policies import Accountability
from domain.collections.coercion import format_datetime
from domain.collections.filters import parse_filter
from domain.collections.query_errors import FieldForbidden, QueryError
from domain.epcis.event_rules import EventRuleError
from infrastructure.mailer import Mail
from infrastructure.passwords import Passwords, hash_token
from infrastructure.session_store import SessionStore
from projections.access.reader import AccessReader

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

#: Collections a permission row may name besides the schema's: the EPCIS API's events
#: and the audit API.
EXTRA_PERMISSION_COLLECTIONS = ("epcis_event", "audit")


class UsersRules(CollectionRules):
    """E-mail addresses are unique and lower-case; passwords and static tokens are kept
    only as hashes; a new password or address ends the user's sessions."""

    def __init__(
        self, sessions: SessionStore, blocking: BlockingRunner, passwords: Passwords
    ) -> None:
        self._sessions = sessions
        self._blocking = blocking
        self._passwords = passwords

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Normalise the e-mail; hash the password and the static token."""
        values = dict(values)
        if values.get("email") is not None:
            email = normalise_email(str(values["email"]))
            if not _EMAIL.match(email):
                raise InvalidPayload('"email" must be a valid email')
            values["email"] = email
        if values.get("password") is not None:
            if not str(values["password"]):
                raise InvalidPayload('"password" must not be empty')
            values["password"] = self._passwords.hash(str(values["password"]))
        if values.get("token") is not None:
            if len(str(values["token"])) < 16:
                raise InvalidPayload('"token" must be at least 16 characters long')
            values["token"] = hash_token(str(values["token"]))
        if creating:
            values.setdefault("provider", "default")
        return values

    def unique_value(self, field: str, value: Any) -> str:
        """E-mail addresses compare without case."""
        return normalise_email(str(value)) if field == "email" else str(value)

    async def after_update(
        self, caller: Accountability, keys: Sequence[Any], changes: Item
    ) -> None:
        """A new password or e-mail address signs the user out everywhere else: the
        sign-in that made the change stays."""
        if "password" in changes or "email" in changes:
            for key in keys:
                keep = caller.session if str(key) == caller.user else None
                await self._blocking.run(self._sessions.end_all, str(key), keep)


class RolesRules(CollectionRules):
    """Roles take their policies through the access junction; a role is never its own
    ancestor."""

    def __init__(self, access: AccessReader) -> None:
        self._access = access

    def before_update(self, keys: Sequence[Any], changes: Item) -> None:
        """Refuse a parent that is the role itself or one of its descendants."""
        parent = changes.get("parent")
        if parent is not None and set(self._access.role_chain(parent)) & {str(k) for k in keys}:
            raise InvalidPayload('"parent" would make the role its own ancestor')


class PoliciesRules(CollectionRules):
    """A policy's IP allow-list must be addresses, ranges or CIDR blocks."""

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Check the IP allow-list."""
        for entry in str(values.get("ip_access") or "").split(","):
            entry = entry.strip()
            if entry and not _valid_ip_entry(entry):
                raise InvalidPayload(
                    f'"ip_access" entry "{entry}" is not an IP address, range or CIDR block'
                )
        return values


def _valid_ip_entry(entry: str) -> bool:
    try:
        if "-" in entry:
            low, high = (ipaddress.ip_address(p.strip()) for p in entry.split("-", 1))
            return low.version == high.version
        ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False
    return True


class PermissionsRules(CollectionRules):
    """A permission names a known collection and action; its rules must be filters (an
    item rule on epcis_event one that event queries can answer, its CURIEs bound) and its
    fields a list of names."""

    def __init__(
        self, collections: Callable[[], Sequence[str]], scopes: EventScopes, access: AccessReader
    ) -> None:
        self._collections = collections
        self._scopes = scopes
        self._access = access

    def before_update(self, keys: Sequence[Any], changes: Item) -> None:
        """A rule changed on rows already on `epcis_event` is checked as a new one is."""
        rule = changes.get("permissions")
        if rule is None or "collection" in changes:
            return  # `prepare` checked it against the collection it names
        if EPCIS_EVENTS in self._access.permission_collections(keys).values():
            try:
                self._scopes.check_rule(rule)
            except (QueryError, FieldForbidden, EventRuleError) as exc:
                raise InvalidPayload(f'"permissions" is not a valid filter: {exc}') from exc

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Check the collection, the action, the rules, the presets and the fields."""
        collection = values.get("collection")
        if collection is not None and collection not in self._collections():
            raise InvalidPayload(f'"collection" "{collection}" is not a collection')
        if values.get("action") is not None and values["action"] not in ACTIONS:
            raise InvalidPayload(f'"action" must be one of {", ".join(ACTIONS)}')
        for name in ("permissions", "validation"):
            rule = values.get(name)
            if rule is None:
                continue
            try:
                parse_filter(rule)
                if name == "permissions" and collection == EPCIS_EVENTS:
                    self._scopes.check_rule(rule)
            except (QueryError, FieldForbidden, EventRuleError) as exc:
                raise InvalidPayload(f'"{name}" is not a valid filter: {exc}') from exc
        if values.get("presets") is not None and not isinstance(values["presets"], dict):
            raise InvalidPayload('"presets" must be an object')
        fields = values.get("fields")
        if isinstance(fields, str):
            values = {**values, "fields": [f.strip() for f in fields.split(",") if f.strip()]}
        elif fields is not None and not (
            isinstance(fields, list) and all(isinstance(f, str) for f in fields)
        ):
            raise InvalidPayload('"fields" must be a list of field names or "*"')
        return values


class NotificationsRules(CollectionRules):
    """A notification is stamped with its creation time, and mailed to its recipient
    when they want notifications by e-mail (only on creation, never on update)."""

    def __init__(
        self,
        access: AccessReader,
        blocking: BlockingRunner,
        outbox: Outbox,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._access = access
        self._blocking = blocking
        self._outbox = outbox
        self._clock = clock

    async def after_create(self, items: Sequence[Item]) -> None:
        """Mail each new notification to its recipient."""
        for item in items:
            recipient = await self._blocking.run(
                self._access.notification_address, item["recipient"]
            )
            if recipient is not None:
                self._outbox.post(
                    Mail(recipient, str(item.get("subject") or ""), str(item.get("message") or ""))
                )

    def prepare(self, values: Item, *, creating: bool) -> Item:
        """Stamp new notifications."""
        if creating:
            return {**values, "timestamp": format_datetime(self._clock())}
        return values
