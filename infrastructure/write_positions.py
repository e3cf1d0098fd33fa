"""The WAL position each caller last wrote up to, for reads on replicas (see
`infrastructure.replicas`)."""

from infrastructure.database import Database

_POSITIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS replica_read_positions ("
    " caller TEXT PRIMARY KEY, lsn pg_lsn NOT NULL)"
)


class WritePositions:
    """The WAL position each caller last wrote up to, kept on the primary so that every
    process sharing it knows (a caller's next read may reach another process)."""

    def __init__(self, primary: Database) -> None:
        self._primary = primary
        with primary.transaction() as conn:
            conn.execute(_POSITIONS_DDL)

    def wrote(self, caller: str) -> None:
        """Note that `caller`'s writes so far are all in the WAL up to its current end."""
        with self._primary.transaction(durable=False) as conn:
            conn.execute(
                "INSERT INTO replica_read_positions (caller, lsn)"
                " VALUES (?, pg_current_wal_insert_lsn()) ON CONFLICT (caller) DO UPDATE"
                " SET lsn = GREATEST(replica_read_positions.lsn, EXCLUDED.lsn)",
                (caller,),
            )

    def last_write(self, caller: str) -> str | None:
        """The WAL position up to which a replica must have replayed for `caller`."""
        with self._primary.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT lsn::text FROM replica_read_positions WHERE caller = ?", (caller,)
            )
        return None if value is None else str(value)
