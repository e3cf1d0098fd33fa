"""Keeping the audit tree whole: leaves for entries written without them, and a rebuild
from the log on replay (the signed heads are never rewritten)."""

import logging

from infrastructure.audit.tree_store import TreeStore
from infrastructure.database import Database
from infrastructure.event_store import EventStore

log = logging.getLogger(__name__)


class TreeUpkeep:
    """Seals the log (every entry has its leaf) and rebuilds the tree from it."""

    def __init__(self, store: EventStore, database: Database, tree: TreeStore) -> None:
        self._store = store
        self._db = database
        self._tree = tree

    def seal(self) -> int:
        """Give every entry without a leaf its leaf, holding the log's write lock (at
        start: a log written before the tree existed, or with it switched off); the
        number written. Blocks."""
        with self._db.transaction() as conn:
            self._store.lock_within(conn)
            written = self._store.seal(conn)
        if written:
            log.info("wrote the audit tree's leaves of %d log entries", written)
        return written

    def rebuild(self) -> int:
        """Drop the leaves and nodes and write them again from the log, in one transaction
        holding the log's write lock; the number of leaves. Blocks."""
        writer = self._store.leaf_writer
        with self._db.transaction() as conn:
            self._store.lock_within(conn)
            self._tree.drop(conn, writer)
            written = self._store.seal(conn)
        self._tree.build()
        return written
