"""Follows the event log and keeps every projection's tables up to date, exactly once."""

import hashlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence

from infrastructure.database import Connection, Database
from infrastructure.event_store import EventStore, LoggedEvent
from infrastructure.outages import is_database_unavailable
from projections.projection import Projection

log = logging.getLogger(__name__)

_POSITIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS projection_positions ("
    " name TEXT PRIMARY KEY, position {bigint} NOT NULL)"
)
#: The DDL each projection's tables were made with, as a digest.
_SHAPES_DDL = (
    "CREATE TABLE IF NOT EXISTS projection_shapes (name TEXT PRIMARY KEY, shape TEXT NOT NULL)"
)

#: Seconds `apply_saved` waits for the runner before leaving the events to the follower.
APPLY_SAVED_WAIT = 1.0

#: The query tables' statistics are refreshed whenever the log has grown by this fraction
#: and by at least `ANALYZE_MIN_EVENTS` events since they were last refreshed. Sampling
#: costs a fraction of a second whatever the size, so small tables are not redone often.
ANALYZE_GROWTH = 0.2
ANALYZE_MIN_EVENTS = 50_000


def _shape_text(projection: Projection) -> str:
    """What the shape digest of `projection`'s tables is taken over: its DDL and, once
    raised, its revision (so the digests of projections never revised stay as they were)."""
    text = "\n".join(projection.schema)
    return f"{text}\nrevision {projection.revision}" if projection.revision else text


class ProjectionConflict(Exception):
    """Another runner moved a projection's position while this one was writing."""


class ProjectionRunner:
    """Reads the log after each projection's position and applies it in batches.

    Each batch's rows and the new position commit in one transaction, guarded by the
    old position: a second runner (another process) that raced on the same batch fails
    its transaction instead of writing the rows twice.
    """

    def __init__(
        self,
        store: EventStore,
        database: Database,
        projections: Sequence[Projection],
        batch_size: int = 1000,
        retired: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self._store = store
        self._db = database
        self.projections = tuple(projections)
        # Projections of earlier versions, by name, with the tables they owned.
        self._retired = dict(retired or {})
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._reached = 0
        self._reached_changed = threading.Condition()
        # Last known position of each projection, for the guard of `apply_saved`.
        self._positions: dict[str, int] = {}
        # Log head when the tables' planner statistics were last refreshed by this runner.
        self._analyzed_at = 0

    @property
    def reached(self) -> int:
        """Every projection has applied the log up to at least this position."""
        return self._reached

    def create_tables(self) -> None:
        """Create the positions table and every projection's tables."""
        with self._db.transaction() as conn:
            self._create(conn)

    def _create(self, conn: Connection) -> None:
        conn.execute(_POSITIONS_DDL)
        for name, tables in self._retired.items():
            # A table a retired projection owned may be reused under a new shape.
            if conn.fetchval("SELECT 1 FROM projection_positions WHERE name = ?", (name,)):
                for table in tables:
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
                conn.execute("DELETE FROM projection_positions WHERE name = ?", (name,))
        conn.execute(_SHAPES_DDL)
        for projection in self.projections:
            self._reshape(conn, projection)
            projection.create_tables(conn)
            conn.execute(
                "INSERT INTO projection_positions (name, position) "
                "SELECT ?, 0 WHERE NOT EXISTS "
                "(SELECT 1 FROM projection_positions WHERE name = ?)",
                (projection.name, projection.name),
            )

    @staticmethod
    def _reshape(conn: Connection, projection: Projection) -> None:
        """Tables made from other DDL than the projection's now (a new column, another
        index, a collection whose fields changed) or by an earlier revision of it are
        dropped and built again from the log; so are tables from before shapes were
        recorded."""
        shape = hashlib.sha256(_shape_text(projection).encode()).hexdigest()
        stored = conn.fetchval(
            "SELECT shape FROM projection_shapes WHERE name = ?", (projection.name,)
        )
        if stored == shape:
            return
        built = conn.fetchval(
            "SELECT 1 FROM projection_positions WHERE name = ?", (projection.name,)
        )
        if built:
            log.warning("the tables of %s changed shape; rebuilding them", projection.name)
            projection.drop_tables(conn)
            conn.execute("DELETE FROM projection_positions WHERE name = ?", (projection.name,))
        conn.execute("DELETE FROM projection_shapes WHERE name = ?", (projection.name,))
        conn.execute(
            "INSERT INTO projection_shapes (name, shape) VALUES (?, ?)", (projection.name, shape)
        )

    def position(self, projection: Projection) -> int:
        """The log position up to which this projection's tables are written."""
        with self._db.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT position FROM projection_positions WHERE name = ?", (projection.name,)
            )
        position = int(value or 0)
        self._positions[projection.name] = position
        return position

    def apply_saved(self, events: Sequence[LoggedEvent]) -> bool:
        """Project events this process has just saved, without reading them back.

        Only when they directly follow everything already applied, so the result is
        exactly what reading the log would give; otherwise nothing is done and False
        returned, and the caller falls back to `catch_up`.
        """
        if not events:
            return True
        first, last = events[0].position, events[-1].position
        if last - first + 1 != len(events):
            return False
        # A poll of the follower holds the lock for moments; a rebuild may hold it for
        # minutes, and then the follower projects these events once it is done.
        if not self._lock.acquire(timeout=APPLY_SAVED_WAIT):
            return False
        try:
            return self._apply_saved(events, first, last)
        except Exception as exc:
            # The events are stored; failing to project them here only defers them to
            # the follower, and must not fail the write that stored them. An outage is
            # the follower's to report, once.
            if not is_database_unavailable(exc):
                log.exception("projecting just-saved events failed; the follower will retry")
            return False
        finally:
            self._lock.release()

    def _apply_saved(self, events: Sequence[LoggedEvent], first: int, last: int) -> bool:
        if self._reached >= last:
            return True
        if self._reached != first - 1:
            return False
        batches: list[tuple[Projection, list[LoggedEvent]]] = []
        for projection in self.projections:
            batch = [e for e in events if isinstance(e.event, projection.follows)]
            if batch:
                if projection.name not in self._positions:
                    return False
                batches.append((projection, batch))
        try:
            # One commit for every projection: a capture's rows land together.
            with self._db.transaction(durable=False) as conn:
                for projection, batch in batches:
                    old = self._positions[projection.name]
                    self._move(conn, projection, old, batch[-1].position)
                    projection.apply(conn, batch)
        except ProjectionConflict:
            # Another runner moved on: what this one knows of positions is stale.
            self._positions.clear()
            return False
        for projection, batch in batches:
            self._positions[projection.name] = batch[-1].position
        self._advance(last)
        return True

    def catch_up(self, progress: Callable[[int], None] | None = None) -> int:
        """Apply everything in the log up to its current head; return that head.

        `progress`, if given, is called with the number of events applied per batch.
        A projection that fails does not hold the others back; its error is raised once
        they have caught up.
        """
        with self._lock:
            head = self._store.max_position()
            failure: Exception | None = None
            for projection in self.projections:
                try:
                    self._catch_up_one(projection, head, progress)
                except Exception as exc:
                    if is_database_unavailable(exc):
                        raise  # no projection gets on without the database; the caller says so
                    log.exception("projection %s failed", projection.name)
                    failure = failure or exc
            if failure is not None:
                raise failure
            self._advance(head)
        # Outside the lock: captures go on projecting while the statistics are sampled.
        self._refresh_statistics(head)
        return head

    def _refresh_statistics(self, head: int) -> None:
        if head < max(
            self._analyzed_at * (1 + ANALYZE_GROWTH), self._analyzed_at + ANALYZE_MIN_EVENTS
        ):
            return
        try:
            self._db.analyze([table for p in self.projections for table in p.tables])
        except Exception as exc:
            # Stale statistics slow queries down; they never make them wrong.
            if not is_database_unavailable(exc):
                log.exception("refreshing the query tables' statistics failed")
            return
        self._analyzed_at = head

    def _catch_up_one(
        self, projection: Projection, head: int, progress: Callable[[int], None] | None
    ) -> None:
        position = self.position(projection)
        while position < head:
            batch = (
                self._store.read(
                    after=position, limit=self._batch_size, stop=head, topics=projection.topics
                )
                if projection.follows
                # Tables filled as they are made (the reference lists): no event is theirs,
                # and a read with no topic to select would read every event.
                else []
            )
            # A short batch holds everything this projection follows up to the head, so
            # the position moves to the head: the next poll must not search the same
            # stretch of log again (for a projection of rare events, the whole log).
            new_position = batch[-1].position if len(batch) == self._batch_size else head
            try:
                with self._db.transaction(durable=False) as conn:
                    # Claim the batch first: a racing runner blocks here, then fails the
                    # guard, before it has written a single row.
                    self._move(conn, projection, position, new_position)
                    if batch:
                        projection.apply(conn, batch)
            except ProjectionConflict:
                log.info("projection %s was advanced by another runner", projection.name)
                position = self.position(projection)
                continue
            position = new_position
            self._positions[projection.name] = position
            if progress is not None and batch:
                progress(len(batch))

    @staticmethod
    def _move(conn: Connection, projection: Projection, old: int, new: int) -> None:
        changed = conn.execute(
            "UPDATE projection_positions SET position = ? WHERE name = ? AND position = ?",
            (new, projection.name, old),
        )
        if changed != 1:
            raise ProjectionConflict(projection.name)

    def _advance(self, head: int) -> None:
        with self._reached_changed:
            if head > self._reached:
                self._reached = head
                self._reached_changed.notify_all()

    def wait_for(self, position: int, timeout: float) -> bool:
        """Block until every projection has reached `position`; False on timeout."""
        with self._reached_changed:
            return self._reached_changed.wait_for(lambda: self._reached >= position, timeout)

    def rebuild(self, progress: Callable[[int], None] | None = None) -> int:
        """Drop every read model and build it again from position 0."""
        with self._lock:
            # One transaction: a reader or another runner sees the old tables or the
            # new empty ones, never a moment without them.
            with self._db.transaction() as conn:
                for projection in self.projections:
                    projection.drop_tables(conn)
                conn.execute("DROP TABLE IF EXISTS projection_positions")
                conn.execute("DROP TABLE IF EXISTS projection_shapes")
                self._create(conn)
            self._reached = 0
            self._positions.clear()
            self._analyzed_at = 0
        return self.catch_up(progress)
