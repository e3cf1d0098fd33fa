"""Who a caller is and what the policies that apply to them allow, combined as Directus
combines them: collections, actions, fields and item rules add up across policies;
validation rules all apply; presets merge, later policies winning."""

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: The built-in policy of unauthenticated requests (and of users without a role).
PUBLIC_POLICY_ID = "abf8a154-5b1c-4a46-ac9c-7300570f4f17"


@dataclass(frozen=True)
class PermissionRule:
    """One permission row of an applicable policy."""

    policy: str
    collection: str
    action: str
    permissions: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None
    presets: dict[str, Any] | None = None
    fields: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PolicyGrant:
    """A policy as it reaches a caller: its flags, IP allow-list and permission rows."""

    id: str
    admin_access: bool = False
    app_access: bool = False
    enforce_tfa: bool = False
    ip_access: str | None = None
    rules: tuple[PermissionRule, ...] = ()

    def allows_ip(self, ip: str | None) -> bool:
        """Whether the policy applies to a request from `ip` (an empty list: everywhere)."""
        entries = [e.strip() for e in (self.ip_access or "").split(",") if e.strip()]
        if not entries:
            return True
        if ip is None:
            return False
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return False
        return any(_ip_matches(address, entry) for entry in entries)


def _ip_matches(address: ipaddress.IPv4Address | ipaddress.IPv6Address, entry: str) -> bool:
    try:
        if "-" in entry:
            low, high = (ipaddress.ip_address(p.strip()) for p in entry.split("-", 1))
            same_family = low.version == high.version == address.version
            return same_family and int(low) <= int(address) <= int(high)
        return address in ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return False


@dataclass(frozen=True)
class CollectionAccess:
    """What one action on one collection is allowed, combined over the caller's policies."""

    #: The item rule (a filter object); None means every item.
    rule: dict[str, Any] | None
    #: Field names, or ("*",) for all.
    fields: tuple[str, ...]
    #: Every validation rule that must hold.
    validation: tuple[dict[str, Any], ...]
    presets: dict[str, Any]

    @property
    def full(self) -> bool:
        """True when no item rule limits the action."""
        return self.rule is None

    def allows_field(self, name: str) -> bool:
        """Whether the action may touch this field."""
        return "*" in self.fields or name in self.fields


@dataclass(frozen=True)
class Accountability:
    """The caller of a request: user, role chain, applicable policies and their rules."""

    user: str | None = None
    role: str | None = None
    #: The user's account, in a multi-tenant installation.
    account: str | None = None
    #: The installation keeps accounts apart (multi-tenant).
    tenant_bound: bool = False
    roles: tuple[str, ...] = ()
    policies: tuple[PolicyGrant, ...] = ()
    ip: str | None = None
    #: The client software, as its User-Agent header names it (for the activity log).
    user_agent: str | None = None
    #: How the caller authenticated: "jwt", "session", "static" or None (public).
    via: str | None = None
    #: The user has two-factor authentication enabled.
    tfa_enabled: bool = False
    #: The sign-in (session family) the request's token belongs to, if any.
    session: str | None = None
    _cache: dict[tuple[str, str], CollectionAccess | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def accounts(self) -> tuple[str, ...] | None:
        """The accounts whose items and events the caller may see: None for all (an
        administrator, a single-tenant installation), none for a user without one."""
        if self.admin or not self.tenant_bound:
            return None
        return (self.account,) if self.account else ()

    @property
    def admin(self) -> bool:
        """Admin access bypasses every permission check."""
        return any(p.admin_access for p in self.policies)

    @property
    def app(self) -> bool:
        """May use the web application."""
        return self.admin or any(p.app_access for p in self.policies)

    @property
    def enforce_tfa(self) -> bool:
        """A policy of the caller requires two-factor authentication."""
        return any(p.enforce_tfa for p in self.policies)

    @property
    def must_enable_tfa(self) -> bool:
        """A policy requires two-factor authentication that the user has not enabled."""
        return self.user is not None and self.enforce_tfa and not self.tfa_enabled

    @property
    def policy_ids(self) -> tuple[str, ...]:
        """The ids of the applicable policies, lowest priority first."""
        return tuple(p.id for p in self.policies)

    def collections(self) -> list[str]:
        """The collections on which the caller has at least one permission row."""
        return sorted({r.collection for p in self.policies for r in p.rules})

    def access(self, collection: str, action: str) -> CollectionAccess | None:
        """The combined permission for an action on a collection, or None if none."""
        key = (collection, action)
        if key not in self._cache:
            self._cache[key] = self._combine(collection, action)
        return self._cache[key]

    def _combine(self, collection: str, action: str) -> CollectionAccess | None:
        rules = [
            r
            for p in self.policies
            for r in p.rules
            if r.collection == collection and r.action == action
        ]
        if not rules:
            return None
        item_rules = [r.permissions for r in rules]
        rule = None if any(not r for r in item_rules) else _any_of(item_rules)
        fields: set[str] = set()
        for r in rules:
            fields.update(r.fields or ())
        presets: dict[str, Any] = {}
        for r in rules:
            presets.update(r.presets or {})
        return CollectionAccess(
            rule=rule,
            fields=("*",) if "*" in fields else tuple(sorted(fields)),
            validation=tuple(r.validation for r in rules if r.validation),
            presets=presets,
        )


def _any_of(rules: list[dict[str, Any] | None]) -> dict[str, Any]:
    present = [r for r in rules if r]
    return present[0] if len(present) == 1 else {"_or": present}


def applicable(policies: Sequence[PolicyGrant], ip: str | None) -> tuple[PolicyGrant, ...]:
    """The policies that apply to a request from `ip`: those whose allow-list admits it."""
    return tuple(p for p in policies if p.allows_ip(ip))


#: The service itself, for writes it makes on its own behalf (suspending an account).
SYSTEM = Accountability(policies=(PolicyGrant(id="system", admin_access=True),), via="system")
