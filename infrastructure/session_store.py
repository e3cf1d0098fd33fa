"""Sign-in sessions: hashed refresh tokens with their user and expiry, and the digests of
the tokens refreshes replaced, to recognise one presented again.

Sessions are operational state, not history: they live beside the read models, are never
dropped by a replay, and hold only digests of the tokens they were issued with.
"""

import uuid
from dataclasses import dataclass

from infrastructure.connection import Connection
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
    # Digests of tokens a refresh replaced, kept until they would have expired: one
    # presented again was copied, and its family is ended (`rotate`).
    "CREATE TABLE IF NOT EXISTS auth_rotated_tokens ("
    " token_hash TEXT PRIMARY KEY, family TEXT NOT NULL, expires_at {real} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS auth_rotated_tokens_family ON auth_rotated_tokens (family)",
    "CREATE INDEX IF NOT EXISTS auth_rotated_tokens_expiry ON auth_rotated_tokens (expires_at)",
)


@dataclass(frozen=True)
class Session:
    """A live session."""

    user_id: str
    expires_at: float
    #: The sign-in the session belongs to, the same across its refreshes.
    family: str


@dataclass(frozen=True)
class Reused:
    """A replaced token was presented again: its family's sessions (`ended` of them)
    are gone."""

    family: str
    ended: int


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

    def rotate(self, old: str, new: str, now: float, expires_at: float) -> Session | Reused | None:
        """Replace the session of `old` by one for `new`, which lives until `expires_at`,
        in the same family. The old token stops working at once.

        None when `old` has no live session (expired, ended, unknown). Reused when `old`
        was replaced already: someone holds a copy, so every session of its family ends,
        the newest too (reuse detection, OAuth 2.0 Security BCP §4.14).
        """
        old_hash = hash_token(old)
        with self._db.transaction() as conn:
            row = conn.fetchone(
                "SELECT user_id, ip, user_agent, family, expires_at FROM auth_sessions"
                " WHERE token_hash = ? AND expires_at > ?",
                (old_hash, now),
            )
            if row is None:
                return self._reused(conn, old_hash, now)
            # Of two refreshes with one token, only the one that deletes it goes on; the
            # other is a reuse like any later one.
            if conn.execute("DELETE FROM auth_sessions WHERE token_hash = ?", (old_hash,)) != 1:
                return self._end_family(conn, str(row[3]))
            conn.execute(
                "INSERT INTO auth_rotated_tokens (token_hash, family, expires_at) VALUES (?, ?, ?)",
                (old_hash, row[3], row[4]),
            )
            conn.execute(
                "INSERT INTO auth_sessions"
                " (token_hash, user_id, expires_at, ip, user_agent, family)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (hash_token(new), row[0], expires_at, row[1], row[2], row[3]),
            )
            return Session(str(row[0]), expires_at, str(row[3]))

    def _reused(self, conn: Connection, token_hash: str, now: float) -> Reused | None:
        family = conn.fetchval(
            "SELECT family FROM auth_rotated_tokens WHERE token_hash = ? AND expires_at > ?",
            (token_hash, now),
        )
        return None if family is None else self._end_family(conn, str(family))

    @staticmethod
    def _end_family(conn: Connection, family: str) -> Reused:
        ended = conn.execute("DELETE FROM auth_sessions WHERE family = ?", (family,))
        return Reused(family, ended)

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
        """Forget expired sessions, and replaced tokens that would have expired."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM auth_sessions WHERE expires_at <= ?", (now,))
            conn.execute("DELETE FROM auth_rotated_tokens WHERE expires_at <= ?", (now,))
