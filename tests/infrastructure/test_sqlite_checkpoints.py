"""SQLite copies its write-ahead log back into the file seldom enough for captures."""

from pathlib import Path

from infrastructure.database import WAL_PAGES_BETWEEN_CHECKPOINTS, Database
from infrastructure.database_url import DatabaseUrl

PAGE = 4096


def test_writes_beyond_sqlites_default_checkpoint_stay_in_the_write_ahead_log(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    database = Database(DatabaseUrl.parse(f"sqlite:///{path}"), pool_size=1)
    try:
        with database.transaction() as conn:
            conn.execute("CREATE TABLE rows (value BLOB)")
        # Twice SQLite's default of 1,000 pages, in commits of ~100 pages: at its default
        # a checkpoint would have reset the log to its start and it would stay ~1,000.
        for _ in range(20):
            with database.transaction() as conn:
                conn.executemany("INSERT INTO rows VALUES (zeroblob(4000))", [()] * 100)
        wal_pages = (tmp_path / "store.db-wal").stat().st_size // PAGE
        assert 1_900 < wal_pages < WAL_PAGES_BETWEEN_CHECKPOINTS
    finally:
        database.close()
