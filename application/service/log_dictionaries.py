"""Training the log's compression dictionaries as the log grows
(`infrastructure/log_dictionaries.py` says when and on what)."""

import logging
from collections.abc import Callable

from application.service.blocking import BlockingRunner
from infrastructure.database import Database
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.log_dictionaries import (
    SAMPLES,
    StoredDictionary,
    dictionary_entry,
    due_at,
    train,
)
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)

#: The lock that lets one process of an installation train at a time.
TRAINING_LOCK = "tracepoint-log-dictionary"


class LogDictionaryTraining:
    """Trains the next dictionary when the log has grown enough, in one process."""

    def __init__(
        self,
        store: EventStore,
        database: Database,
        projections: ProjectionRunner,
        blocking: BlockingRunner,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self._store = store
        self._db = database
        self._projections = projections
        self._blocking = blocking
        self._wake = wake
        #: The log position from which training is due, as this process last knew it.
        self.due_at = due_at(None)

    def noticed(self, position: int) -> None:
        """The log has reached `position` (a capture's last): wake the training when due."""
        if position >= self.due_at:
            self._wake()

    async def run(self) -> None:
        """Background work: learn what other processes trained, train when due."""
        await self._blocking.run(self.train_if_due)

    def train_if_due(self) -> StoredDictionary | None:
        """Train and store the next dictionary if the log has grown enough; the one
        stored, else None. Blocks."""
        with self._db.try_exclusive(TRAINING_LOCK) as mine:
            if not mine:
                return None
            known = self._store.load_dictionaries()
            self.due_at = due_at(known[-1] if known else None)
            head = self._store.max_position()
            if head < self.due_at:
                return None
            content = train(self._store.newest_entries(SAMPLES))
            if content is None:
                # Entries too few or too alike: try again when the log has doubled.
                self.due_at = head * 2
                return None
            trained = StoredDictionary(content, head)
            try:
                with self._db.transaction() as conn:
                    self._store.lock_within(conn)
                    entry = dictionary_entry(len(known) + 1, trained)
                    [position] = self._store.append_stored_within(conn, [entry])
                    passed = self._projections.pass_within(conn, position)
            except DuplicateAggregate:  # a process not holding the lock (an older one)
                self._store.load_dictionaries()
                return None
            if passed:
                self._projections.passed(position)
            self._store.load_dictionaries()
            self.due_at = due_at(trained)
            log.info(
                "trained log dictionary %d on the newest %d entries (log at %d)",
                len(known) + 1,
                SAMPLES,
                head,
            )
            return trained
