"""Keeps at least one active administrator: a change that would leave none is refused.

Administrators come from users, roles (with their ancestors), the access junction and
policies together, so the check looks at all four as the change would leave them.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from application.service.errors import Unprocessable
from domain.records.record import Record
from projections.access.reader import MAX_ROLE_DEPTH, AccessReader

Tables = dict[str, dict[str, dict[str, Any]]]

#: The fields whose change can take administrator access away, per collection.
RELEVANT = {
    "users": frozenset({"status", "role"}),
    "roles": frozenset({"parent"}),
    "access": frozenset({"role", "user", "policy"}),
    "policies": frozenset({"admin_access"}),
}


def _may_demote(record: Record) -> bool:
    """Whether the record's new events could take administrator access from anyone:
    creating adds access, so only deletions and some updates count."""
    fields = RELEVANT.get(record.collection)
    if fields is None:
        return False
    for change in record.pending_events:
        if isinstance(change, Record.Deleted):
            return True
        if isinstance(change, Record.Updated) and fields & set(change.changes):
            return True
    return False


class AdminGuard:
    """Refuses a batch of record changes that would leave no active administrator."""

    def __init__(self, reader: AccessReader) -> None:
        self._reader = reader

    def check(self, changed: Iterable[Any]) -> None:
        """Unprocessable when the records (as changed) leave no active admin where
        there was one."""
        records = [r for r in changed if isinstance(r, Record) and r.collection in RELEVANT]
        if not any(_may_demote(r) for r in records):
            return
        before = self._reader.access_tables()
        if not _admins(before):
            return
        after = {name: dict(rows) for name, rows in before.items()}
        for record in records:
            key = Record.split_id(record.id)[1]
            if record.deleted:
                after[record.collection].pop(key, None)
            else:
                after[record.collection][key] = {**record.values, "id": key}
        if not _admins(after):
            raise Unprocessable("Cannot remove the last admin user from the system")


def _admins(tables: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> set[str]:
    admin_policies = {k for k, p in tables["policies"].items() if p.get("admin_access")}
    by_role: dict[str, set[str]] = {}
    by_user: dict[str, set[str]] = {}
    public: set[str] = set()
    for row in tables["access"].values():
        if row.get("role"):
            by_role.setdefault(row["role"], set()).add(row["policy"])
        elif row.get("user"):
            by_user.setdefault(row["user"], set()).add(row["policy"])
        else:
            public.add(row["policy"])
    admins = set()
    for user_id, user in tables["users"].items():
        if user.get("status") != "active":
            continue
        chain = _chain(tables["roles"], user.get("role"))
        policies = set().union(*(by_role.get(r, set()) for r in chain)) if chain else public
        if (policies | by_user.get(user_id, set())) & admin_policies:
            admins.add(user_id)
    return admins


def _chain(roles: Mapping[str, Mapping[str, Any]], role: str | None) -> list[str]:
    chain: list[str] = []
    while role is not None and role in roles and role not in chain and len(chain) < MAX_ROLE_DEPTH:
        chain.append(role)
        role = roles[role].get("parent")
    return chain
