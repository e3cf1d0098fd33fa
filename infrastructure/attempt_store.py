"""Sign-in attempts and failures, counted in the database so that every process sharing
it counts together: a limit does not grow with the number of processes."""

from infrastructure.database import Database

_DDL = (
    "CREATE TABLE IF NOT EXISTS auth_attempts ("
    " scope TEXT NOT NULL, address TEXT NOT NULL, at {real} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS auth_attempts_address ON auth_attempts (scope, address, at)",
    "CREATE INDEX IF NOT EXISTS auth_attempts_at ON auth_attempts (at)",
    "CREATE TABLE IF NOT EXISTS auth_failures ("
    " account TEXT PRIMARY KEY, failures INTEGER NOT NULL)",
)


class AttemptStore:
    """Attempts per scope and client address in a sliding window; failures in a row per
    account."""

    def __init__(self, database: Database) -> None:
        self._db = database
        with database.transaction() as conn:
            for statement in _DDL:
                conn.execute(statement)

    def take(self, scope: str, address: str, now: float, window: float, limit: int) -> float:
        """Record an attempt unless `limit` attempts lie in the last `window` seconds;
        0 when recorded, else the seconds until the oldest leaves the window."""
        with self._db.transaction() as conn:
            conn.lock(f"attempts:{scope}:{address}")
            # Every address's old attempts go, not just this one's: the table holds one
            # window of attempts, however many addresses came and went.
            conn.execute("DELETE FROM auth_attempts WHERE at <= ?", (now - window,))
            row = conn.fetchone(
                "SELECT COUNT(*), MIN(at) FROM auth_attempts WHERE scope = ? AND address = ?",
                (scope, address),
            )
            count, oldest = (int(row[0]), row[1]) if row else (0, None)
            if count >= limit and oldest is not None:
                return max(float(oldest) + window - now, 0.001)
            conn.execute(
                "INSERT INTO auth_attempts (scope, address, at) VALUES (?, ?, ?)",
                (scope, address, now),
            )
            return 0.0

    def give_back(self, scope: str, address: str) -> None:
        """Forget the newest attempt of an address."""
        with self._db.transaction() as conn:
            conn.lock(f"attempts:{scope}:{address}")
            conn.execute(
                "DELETE FROM auth_attempts WHERE scope = ? AND address = ? AND at ="
                " (SELECT MAX(at) FROM auth_attempts WHERE scope = ? AND address = ?)",
                (scope, address, scope, address),
            )

    def fail(self, account: str) -> int:
        """Count one more failure in a row for the account; return the count."""
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO auth_failures (account, failures) VALUES (?, 1)"
                " ON CONFLICT (account) DO UPDATE SET failures = auth_failures.failures + 1",
                (account,),
            )
            return int(
                conn.fetchval("SELECT failures FROM auth_failures WHERE account = ?", (account,))
            )

    def clear(self, account: str) -> None:
        """The account signed in: its failures in a row start again from none."""
        with self._db.transaction() as conn:
            conn.execute("DELETE FROM auth_failures WHERE account = ?", (account,))
