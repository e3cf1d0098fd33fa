"""Single sign-on flows under way: what a provider's callback needs (nonce, PKCE verifier,
where to go next), kept in the database under a digest of the flow's `state`, so that the
callback may reach any process sharing it, and usable once."""

from dataclasses import dataclass

from infrastructure.database import Database
from infrastructure.passwords import hash_token

_DDL = (
    "CREATE TABLE IF NOT EXISTS auth_sign_in_flows ("
    " state_hash TEXT PRIMARY KEY,"
    " provider TEXT NOT NULL,"
    # Digest of the random value of the cookie that ties the flow to the browser that
    # started it: a callback from any other browser is refused.
    " browser_hash TEXT NOT NULL,"
    " nonce TEXT NOT NULL,"
    " code_verifier TEXT NOT NULL,"
    " redirect TEXT,"
    " mode TEXT NOT NULL,"
    " otp TEXT,"
    " expires_at {real} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS auth_sign_in_flows_expiry ON auth_sign_in_flows (expires_at)",
)


@dataclass(frozen=True)
class SignInFlow:
    """One flow: its provider, its secrets and what the sign-in should answer."""

    provider: str
    browser: str
    nonce: str
    code_verifier: str
    redirect: str | None
    mode: str
    otp: str | None = None


@dataclass(frozen=True)
class TakenFlow:
    """A flow as its callback finds it: its browser's digest instead of the value."""

    provider: str
    browser_hash: str
    nonce: str
    code_verifier: str
    redirect: str | None
    mode: str
    otp: str | None
    expires_at: float


class SignInFlowStore:
    """Keeps flows until their callback takes them, or they expire."""

    def __init__(self, database: Database) -> None:
        self._db = database
        with database.transaction() as conn:
            for statement in _DDL:
                conn.execute(statement)

    def add(self, state: str, flow: SignInFlow, expires_at: float, now: float) -> None:
        """Keep a new flow under its `state`; forget the expired ones."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM auth_sign_in_flows WHERE expires_at <= ?", (now,))
            conn.execute(
                "INSERT INTO auth_sign_in_flows (state_hash, provider, browser_hash, nonce,"
                " code_verifier, redirect, mode, otp, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    hash_token(state),
                    flow.provider,
                    hash_token(flow.browser),
                    flow.nonce,
                    flow.code_verifier,
                    flow.redirect,
                    flow.mode,
                    flow.otp,
                    expires_at,
                ),
            )

    def take(self, state: str) -> TakenFlow | None:
        """The flow of `state`, removed: a second callback with it finds nothing. None for
        an unknown or already used state (expiry is the caller's to check)."""
        state_hash = hash_token(state)
        with self._db.transaction() as conn:
            row = conn.fetchone(
                "SELECT provider, browser_hash, nonce, code_verifier, redirect, mode, otp,"
                " expires_at FROM auth_sign_in_flows WHERE state_hash = ?",
                (state_hash,),
            )
            # Of two callbacks with one state, only the one that deletes the row goes on.
            if row is None or (
                conn.execute("DELETE FROM auth_sign_in_flows WHERE state_hash = ?", (state_hash,))
                != 1
            ):
                return None
        return TakenFlow(
            str(row[0]),
            str(row[1]),
            str(row[2]),
            str(row[3]),
            row[4],
            str(row[5]),
            row[6],
            float(row[7]),
        )
