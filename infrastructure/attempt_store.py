"""Sign-in attempts and failures, counted in the database so that every process sharing
it counts together: a limit or a lock does not grow weaker with the number of processes."""

from collections.abc import Sequence

from domain.access.backoff import Backoff
from infrastructure.connection import Connection
from infrastructure.database import Database

_DDL = (
    "CREATE TABLE IF NOT EXISTS auth_attempts ("
    " scope TEXT NOT NULL, address TEXT NOT NULL, at {real} NOT NULL)",
    "CREATE INDEX IF NOT EXISTS auth_attempts_address ON auth_attempts (scope, address, at)",
    "CREATE INDEX IF NOT EXISTS auth_attempts_at ON auth_attempts (at)",
    # Failures in a row per subject (an account, a client address) and the lock they hold.
    "CREATE TABLE IF NOT EXISTS auth_locks ("
    " scope TEXT NOT NULL, subject TEXT NOT NULL, failures INTEGER NOT NULL,"
    " last_failure {real} NOT NULL, locked_until {real} NOT NULL,"
    " PRIMARY KEY (scope, subject))",
    "CREATE INDEX IF NOT EXISTS auth_locks_last_failure ON auth_locks (last_failure)",
    # `auth_failures`, whose failures in a row suspended accounts before these locks, is
    # left in place: processes of the earlier version may still run beside this one
    # during a rolling upgrade. It is no longer read or written.
)


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))


class AttemptStore:
    """Attempts per scope and client address in a sliding window; failures in a row per
    subject, which lock it for a while."""

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

    def fail_ahead(self, scope: str, rules: Sequence[tuple[str, Backoff]], now: float) -> float:
        """Count a failure for each subject before the attempt is checked, locking those
        that reach their rule's limit; unless one is locked already: then nothing is
        counted and the answer is the seconds until the last lock ends (else 0).

        Counting first means attempts sent at once cannot all slip past the limit: the
        caller takes the failure back (`withdraw`, `clear`) when there was none.
        """
        subjects = sorted(subject for subject, _ in rules)
        self._purge(now - max(rule.forget for _, rule in rules), now)
        with self._db.transaction() as conn:
            for subject in subjects:
                conn.lock(f"locks:{scope}:{subject}")
            rows = {
                str(row[0]): (int(row[1]), float(row[2]), float(row[3]))
                for row in conn.fetchall(
                    "SELECT subject, failures, last_failure, locked_until FROM auth_locks"
                    f" WHERE scope = ? AND subject IN ({_marks(subjects)})",
                    (scope, *subjects),
                )
            }
            wait = max((until - now for _, _, until in rows.values()), default=0.0)
            if wait > 0:
                return wait
            for subject, rule in rules:
                failures, last, _ = rows.get(subject, (0, now, 0.0))
                before = 0 if last <= now - rule.forget else failures
                self._count(conn, scope, subject, rule, now, before)
            return 0.0

    def _purge(self, forgotten: float, now: float) -> None:
        """Forget subjects whose failures are forgotten and who are not locked, so the
        table does not keep every e-mail address a guesser tried."""
        with self._db.transaction() as conn:
            # Purges take turns: two deleting the same rows in different orders could
            # deadlock.
            conn.lock("locks:purge")
            conn.execute(
                "DELETE FROM auth_locks WHERE last_failure <= ? AND locked_until <= ?",
                (forgotten, now),
            )

    @staticmethod
    def _count(
        conn: Connection, scope: str, subject: str, rule: Backoff, now: float, before: int
    ) -> None:
        locked = rule.lock_seconds(before + 1)
        conn.execute(
            "INSERT INTO auth_locks (scope, subject, failures, last_failure, locked_until)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, subject) DO UPDATE SET"
            " failures = excluded.failures, last_failure = excluded.last_failure,"
            " locked_until = excluded.locked_until",
            (scope, subject, before + 1, now, now + locked if locked else 0.0),
        )

    def withdraw(self, scope: str, subjects: Sequence[str], at: float) -> None:
        """Take back the failures counted ahead at `at` for an attempt that did not fail
        (nor succeed yet), and the lock it set, unless a later failure was counted since."""
        with self._db.transaction() as conn:
            for subject in sorted(subjects):
                conn.lock(f"locks:{scope}:{subject}")
            conn.execute(
                "UPDATE auth_locks SET"
                " failures = CASE WHEN failures > 0 THEN failures - 1 ELSE 0 END,"
                # It was let in, so any lock before its own had ended.
                " locked_until = CASE WHEN last_failure = ? THEN 0 ELSE locked_until END"
                f" WHERE scope = ? AND subject IN ({_marks(subjects)})",
                (at, scope, *subjects),
            )

    def clear(self, scope: str, subjects: Sequence[str]) -> None:
        """A success: the subjects' failures in a row start again from none, unlocked."""
        with self._db.transaction() as conn:
            conn.execute(
                f"DELETE FROM auth_locks WHERE scope = ? AND subject IN ({_marks(subjects)})",
                (scope, *subjects),
            )

    def failures(self, scope: str, subject: str) -> tuple[int, float]:
        """A subject's failures in a row and when its lock ends (0: never locked)."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                "SELECT failures, locked_until FROM auth_locks WHERE scope = ? AND subject = ?",
                (scope, subject),
            )
        return (int(row[0]), float(row[1])) if row else (0, 0.0)
