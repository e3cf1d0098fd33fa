"""The users table that authentication looks tokens and e-mail addresses up in."""

from collections.abc import Sequence
from typing import Any

from domain.access.user import User
from infrastructure.database import Connection
from infrastructure.event_store import LoggedEvent
from projections.projection import Projection


class UsersProjection(Projection):
    """One row per user, with hashed secrets only."""

    name = "users"
    follows = (User.Registered,)
    schema = (
        """CREATE TABLE IF NOT EXISTS users (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT,
            token_hash TEXT UNIQUE,
            admin_access INTEGER NOT NULL,
            status TEXT NOT NULL,
            date_created TEXT NOT NULL)""",
    )
    tables = ("users",)

    def apply(self, conn: Connection, events: Sequence[LoggedEvent]) -> None:
        """Insert a row per registered user."""
        rows: list[tuple[Any, ...]] = []
        for logged in events:
            user: Any = logged.event
            rows.append(
                (
                    user.user_id,
                    user.email,
                    user.password_hash,
                    user.token_hash,
                    1 if user.admin_access else 0,
                    user.status,
                    user.registered_at,
                )
            )
        conn.executemany(
            "INSERT INTO users (id, email, password_hash, token_hash, admin_access, status,"
            " date_created) VALUES (?,?,?,?,?,?,?)",
            rows,
        )
