"""Sign-in sessions: hashed refresh tokens with their user and expiry.

Sessions are operational state, not history: they live beside the read models, are never
dropped by a replay, and hold only digests of the tokens they were issued with.
"""

import uuid
from dataclasses import dataclass

from infrastructure.database import Database
from infrastructure.passwords import hash_token

_DDL = (
    "CREATE TABLE IF NOT EXISTS auth_sessions ("
    " token_hash TEXT PRIMARY KEY,"
    " user_id TEXT NOT NULL,"
    " expires_at {real} NOT NULL,"
    " ip TEXT,"
    " user_agent TEXT,"
    # One id for a sign-in and all the tokens its refreshes hand out.
    " family TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS auth_sessions_user ON auth_sessions (user_id)",
    # The newest one-time-password step each user signed in with: a code works once.
    "CREATE TABLE IF NOT EXISTS auth_otp_steps (user_id TEXT PRIMARY KEY, step {bigint} NOT NULL)",
)


@dataclass(frozen=True)
class Session:
    """A live session."""

    user_id: str
    expires_at: float
    #: The sign-in the session belongs to, the same across its refreshes.
    family: str


class SessionStore:
    """Creates, finds, rotates and ends sessions by their opaque tokens."""

    def __init__(self, database: Database) -> None:
        self._db = database
        with database.transaction() as conn:
            for statement in _DDL:
                conn.execute(statement)

    def create(
        self, token: str, user_id: str, expires_at: float, ip: str | None, user_agent: str | None
    ) -> str:
        """Record a new session for `token`; return its family (a new sign-in)."""
        family = str(uuid.uuid4())
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO auth_sessions"
                " (token_hash, user_id, expires_at, ip, user_agent, family)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (hash_token(token), user_id, expires_at, ip, user_agent, family),
            )
        return family

    def find(self, token: str, now: float) -> Session | None:
        """The unexpired session of `token`, or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                "SELECT user_id, expires_at, family FROM auth_sessions"
                " WHERE token_hash = ? AND expires_at > ?",
                (hash_token(token), now),
            )
        return Session(row[0], float(row[1]), row[2]) if row else None

    def rotate(self, old: str, new: str, now: float, expires_at: float) -> Session | None:
        """Replace the session of `old` by one for `new`, which lives until `expires_at`,
        in the same family. The old token stops working at once: None when it has no
        live session (expired, ended, or already used for a refresh)."""
        old_hash = hash_token(old)
        with self._db.transaction() as conn:
            row = conn.fetchone(
                "SELECT user_id, ip, user_agent, family FROM auth_sessions"
                " WHERE token_hash = ? AND expires_at > ?",
                (old_hash, now),
            )
            # Of two refreshes with one token, only the one that deletes it goes on.
            if (
                row is None
                or conn.execute("DELETE FROM auth_sessions WHERE token_hash = ?", (old_hash,)) != 1
            ):
                return None
            conn.execute(
                "INSERT INTO auth_sessions"
                " (token_hash, user_id, expires_at, ip, user_agent, family)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (hash_token(new), row[0], expires_at, row[1], row[2], row[3]),
            )
            return Session(str(row[0]), expires_at, str(row[3]))

    def end(self, token: str) -> None:
        """End the session of `token` (nothing happens if there is none)."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM auth_sessions WHERE token_hash = ?", (hash_token(token),))

    def end_all(self, user_id: str, keep_family: str | None = None) -> None:
        """End every session of a user, except those of the sign-in `keep_family`."""
        with self._db.transaction() as conn:
            conn.execute(
                "DELETE FROM auth_sessions WHERE user_id = ? AND family <> ?",
                (user_id, keep_family or ""),
            )

    def use_otp_step(self, user_id: str, step: int) -> bool:
        """Record that the user signed in with the code of `step`; False when that step
        or a later one was used already (a replayed code)."""
        with self._db.transaction() as conn:
            changed = conn.execute(
                "INSERT INTO auth_otp_steps (user_id, step) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET step = excluded.step"
                " WHERE auth_otp_steps.step < excluded.step",
                (user_id, step),
            )
        return changed == 1

    def purge(self, now: float) -> None:
        """Forget expired sessions."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM auth_sessions WHERE expires_at <= ?", (now,))
