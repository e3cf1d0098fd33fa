"""Per-installation values that must survive a replay, such as the generated secret."""

from infrastructure.database import Database

_DDL = "CREATE TABLE IF NOT EXISTS tracepoint_instance (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


class InstanceStore:
    """A key-value table outside the read models: replay never drops it."""

    def __init__(self, database: Database) -> None:
        self._db = database
        with database.transaction() as conn:
            conn.execute(_DDL)

    def get_or_create(self, key: str, candidate: str) -> str:
        """The stored value for `key`; `candidate` becomes it if there is none yet.

        Several processes starting at once agree on the first value written.
        """
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO tracepoint_instance (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO NOTHING",
                (key, candidate),
            )
            return str(conn.fetchval("SELECT value FROM tracepoint_instance WHERE key = ?", (key,)))

    def get(self, key: str) -> str | None:
        """The stored value for `key`, or None."""
        with self._db.transaction(write=False) as conn:
            value = conn.fetchval("SELECT value FROM tracepoint_instance WHERE key = ?", (key,))
        return None if value is None else str(value)
