"""Lookups that authentication and permission checks make in the access-control tables."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from domain.access.collections import normalise_email
from domain.access.policies import PermissionRule, PolicyGrant
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.sql_conditions import in_list

#: Roles nest; a longer chain than this is a cycle someone wrote, not a hierarchy.
MAX_ROLE_DEPTH = 32


@dataclass(frozen=True)
class UserCredentials:
    """What signing in and resolving a token need to know of a user."""

    id: str
    email: str | None
    password_hash: str | None
    status: str
    role: str | None
    tfa_secret: str | None
    #: The user's account (multi-tenant installations only).
    account: str | None = None
    #: Who proves the user's identity: `default` (e-mail and password) or a provider.
    provider: str = "default"


def _credentials(row: tuple[Any, ...] | None) -> UserCredentials | None:
    if row is None:
        return None
    return UserCredentials(
        row[0], row[1], row[2], row[3] or "draft", row[4], row[5], row[6], row[7] or "default"
    )


def _json(text: str | None) -> Any:
    return orjson.loads(text) if text else None


class AccessReader:
    """Reads users, the role tree, the policies that apply and their permission rows."""

    def __init__(self, database: Database, *, multi_tenant: bool = False) -> None:
        self._db = database
        #: Users belong to accounts (a multi-tenant installation).
        self.multi_tenant = multi_tenant
        account = '"account"' if multi_tenant else "NULL"
        self._user_columns = (
            f'id, email, password, status, role, tfa_secret, {account}, provider FROM "users"'
        )

    def user_by_email(self, email: str) -> UserCredentials | None:
        """The user with this e-mail address (stored lower-case), or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                f"SELECT {self._user_columns} WHERE email = ?", (normalise_email(email),)
            )
        return _credentials(row)

    def user_by_token_hash(self, token_hash: str) -> UserCredentials | None:
        """The user whose static token has this digest, or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(f"SELECT {self._user_columns} WHERE token = ?", (token_hash,))
        return _credentials(row)

    def user_by_external_identifier(self, provider: str, identifier: str) -> UserCredentials | None:
        """The user a provider knows by `identifier` (compared without case, as Directus
        does), or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                f"SELECT {self._user_columns}"
                " WHERE provider = ? AND LOWER(external_identifier) = ?",
                (provider, identifier.lower()),
            )
        return _credentials(row)

    def user(self, user_id: str) -> UserCredentials | None:
        """The user with this id, or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(f"SELECT {self._user_columns} WHERE id = ?", (user_id,))
        return _credentials(row)

    def last_access(self, user_id: str) -> str | None:
        """When the user last signed in (None: never, or no such user)."""
        with self._db.transaction(write=False) as conn:
            value = conn.fetchval("SELECT last_access FROM users WHERE id = ?", (user_id,))
        return None if value is None else str(value)

    def notification_address(self, user_id: str) -> str | None:
        """The e-mail address of an active user who wants notifications by e-mail."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                "SELECT email FROM users"
                " WHERE id = ? AND status = 'active' AND email_notifications = 1",
                (user_id,),
            )
        return row[0] if row and row[0] else None

    def access_tables(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every row of users, roles, access and policies, by collection and key, with
        the columns that decide who is an administrator."""
        columns = {
            "users": "id, status, role",
            "roles": "id, parent",
            "access": 'id, "role", "user", policy',
            "policies": "id, admin_access",
        }
        tables: dict[str, dict[str, dict[str, Any]]] = {}
        with self._db.transaction(write=False) as conn:
            for name, select in columns.items():
                names = [c.strip().strip('"') for c in select.split(",")]
                rows = conn.fetchall(f'SELECT {select} FROM "{name}"')
                tables[name] = {row[0]: dict(zip(names, row, strict=True)) for row in rows}
        return tables

    def permission_collections(self, ids: Sequence[Any]) -> dict[Any, str]:
        """The collection each of the permission rows `ids` names, by id."""
        params: list[Any] = []
        where = in_list("id", list(ids), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f'SELECT id, "collection" FROM "permissions" WHERE {where}', params
            )
        return {row[0]: row[1] for row in rows}

    def role_chain(self, role: str | None) -> tuple[str, ...]:
        """The role and its ancestors, nearest first."""
        with self._db.transaction(write=False) as conn:
            return self._role_chain(conn, role)

    def grants(
        self, user_id: str | None, role: str | None
    ) -> tuple[tuple[str, ...], list[PolicyGrant]]:
        """The role chain (the role, then its ancestors) and the policies of a caller.

        Policies come lowest priority first: ancestors' roles, the role, then the user's
        own. A caller without a role (or without a user) gets the public policies.
        """
        with self._db.transaction(write=False) as conn:
            chain = self._role_chain(conn, role)
            return chain, self._grants(conn, user_id, chain)

    def _grants(
        self, conn: Connection, user_id: str | None, chain: tuple[str, ...]
    ) -> list[PolicyGrant]:
        policy_ids: list[str] = []
        for role_id in reversed(chain):
            policy_ids += [
                r[0]
                for r in conn.fetchall(
                    'SELECT policy FROM "access" WHERE "role" = ? ORDER BY "sort", id', (role_id,)
                )
            ]
        if not chain:
            policy_ids += [
                r[0]
                for r in conn.fetchall(
                    'SELECT policy FROM "access" WHERE "role" IS NULL AND "user" IS NULL'
                    ' ORDER BY "sort", id'
                )
            ]
        if user_id is not None:
            policy_ids += [
                r[0]
                for r in conn.fetchall(
                    'SELECT policy FROM "access" WHERE "user" = ? ORDER BY "sort", id', (user_id,)
                )
            ]
        return self._policies(conn, list(dict.fromkeys(policy_ids)))

    @staticmethod
    def _role_chain(conn: Connection, role: str | None) -> tuple[str, ...]:
        chain: list[str] = []
        while role is not None and role not in chain and len(chain) < MAX_ROLE_DEPTH:
            parent = conn.fetchone('SELECT parent FROM "roles" WHERE id = ?', (role,))
            if parent is None:
                break
            chain.append(role)
            role = parent[0]
        return tuple(chain)

    @staticmethod
    def _policies(conn: Connection, ids: list[str]) -> list[PolicyGrant]:
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        flags = {
            r[0]: r
            for r in conn.fetchall(
                "SELECT id, admin_access, app_access, enforce_tfa, ip_access"
                f' FROM "policies" WHERE id IN ({marks})',
                ids,
            )
        }
        rules: dict[str, list[PermissionRule]] = {i: [] for i in ids}
        for row in conn.fetchall(
            'SELECT policy, "collection", "action", "permissions", "validation", "presets",'
            f' "fields" FROM "permissions" WHERE policy IN ({marks}) ORDER BY id',
            ids,
        ):
            fields = _json(row[6])
            rules[row[0]].append(
                PermissionRule(
                    policy=row[0],
                    collection=row[1],
                    action=row[2],
                    permissions=_json(row[3]),
                    validation=_json(row[4]),
                    presets=_json(row[5]),
                    fields=tuple(fields) if isinstance(fields, list) else None,
                )
            )
        return [
            PolicyGrant(
                id=i,
                admin_access=bool(flags[i][1]),
                app_access=bool(flags[i][2]),
                enforce_tfa=bool(flags[i][3]),
                ip_access=flags[i][4],
                rules=tuple(rules[i]),
            )
            for i in ids
            if i in flags
        ]
