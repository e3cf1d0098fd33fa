"""Follows the event log and keeps every projection's tables up to date, exactly once."""

import hashlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import takewhile

from eventsourcing.utils import get_topic

from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.event_store import EventStore, LoggedEvent
from infrastructure.outages import is_database_unavailable
from projections.projection import Projection, ProjectionConflict, statement_text
from projections.search_index import search_environment

log = logging.getLogger(__name__)

_POSITIONS_DDL = (
    "CREATE TABLE IF NOT EXISTS projection_positions ("
    " name TEXT PRIMARY KEY, position {bigint} NOT NULL)"
)
#: The DDL each projection's tables were made with, as a digest.
_SHAPES_DDL = (
    "CREATE TABLE IF NOT EXISTS projection_shapes (name TEXT PRIMARY KEY, shape TEXT NOT NULL)"
)

#: Held exclusively while tables are made or dropped (start-up, replay), shared by every
#: batch of rows: on PostgreSQL, `CREATE INDEX IF NOT EXISTS` locks its table even when
#: the index exists, so a process starting while another projects would lock tables in
#: another order than the projection writes them, and the two deadlock.
SCHEMA_LOCK = "tracepoint-schema"

#: What each projection's tables were last made or checked with (`_build`), as a
#: digest: while it stays the same, a start skips the projection's DDL and index checks.
_BUILDS_DDL = (
    "CREATE TABLE IF NOT EXISTS projection_builds (name TEXT PRIMARY KEY, build TEXT NOT NULL)"
)

#: The query tables' statistics are refreshed whenever the log has grown by this fraction
#: and by at least `ANALYZE_MIN_EVENTS` events since they were last refreshed. Sampling
#: costs a fraction of a second whatever the size, so small tables are not redone often.
ANALYZE_GROWTH = 0.2
ANALYZE_MIN_EVENTS = 50_000


def _capture_of(logged: LoggedEvent) -> str | None:
    """The capture an event was stored by (its job, events and master data share it)."""
    capture = getattr(logged.event, "capture_id", None)
    return capture if isinstance(capture, str) else None


def _shape_text(projection: Projection) -> str:
    """What the shape digest of `projection`'s tables is taken over: its DDL and, once
    raised, its revision (so the digests of projections never revised stay as they were)."""
    text = "\n".join(statement_text(s) for s in projection.schema)
    return f"{text}\nrevision {projection.revision}" if projection.revision else text


def _build(projection: Projection, search: str | None) -> str:
    """A digest of what a projection's tables, indexes and search indexes are made from:
    its shape, the collections it searches (their search and lookup fields make indexes
    that come and go without a new shape) and the database's search extension."""
    text = f"{_shape_text(projection)}\nsearch {search}\n{projection.searched!r}"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ProjectionLag:
    """How far one projection is behind the log: positions, and the age of the oldest
    event it follows that it has not applied (0 when it has applied all of them)."""

    name: str
    position: int
    positions_behind: int
    seconds_behind: float


class ProjectionRunner:
    """Reads the log after the projections' position and applies it in batches.

    Each batch's rows in every projection and the new positions commit in one
    transaction, guarded by the old position: a second runner (another process) that
    raced on the same batch fails its transaction instead of writing the rows twice, and
    no reader ever sees one projection ahead of another.
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
        # What each follows, by name: spelling topics costs more than a small batch.
        self._followed = {p.name: frozenset(p.topics) for p in self.projections}
        # Projections of earlier versions, by name, with the tables they owned.
        self._retired = dict(retired or {})
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._reached = 0
        self._reached_changed = threading.Condition()
        # Last known position of each projection.
        self._positions: dict[str, int] = {}
        # Log head when the tables' planner statistics were last refreshed by this runner.
        self._analyzed_at = 0
        self._listeners: list[Callable[[Sequence[LoggedEvent], int, int], None]] = []

    def add_listener(self, listener: Callable[[Sequence[LoggedEvent], int, int], None]) -> None:
        """Call `listener(events, after, upto)` whenever every projection has applied the
        log in (after, upto], `events` being all the events they follow there; after the
        commit, before `reached` moves past it."""
        self._listeners.append(listener)

    def _tell(self, events: Sequence[LoggedEvent], after: int, upto: int) -> None:
        for listener in self._listeners:
            try:
                listener(events, after, upto)
            except Exception:
                log.exception("a listener of the projection runner failed")

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
        conn.execute(_BUILDS_DDL)
        # Read once for all projections: a statement each was most of a start's trips.
        builds: dict[str, str] = dict(conn.fetchall("SELECT name, build FROM projection_builds"))
        shapes: dict[str, str] = dict(conn.fetchall("SELECT name, shape FROM projection_shapes"))
        positioned = {
            str(name) for (name,) in conn.fetchall("SELECT name FROM projection_positions")
        }
        # Without its search extension PostgreSQL's search indexes are not made: each
        # start tries again.
        search = search_environment(conn)
        for projection in self.projections:
            reshaped = self._reshape(
                conn, projection, shapes.get(projection.name), projection.name in positioned
            )
            if reshaped:
                positioned.discard(projection.name)
            # Every start used to run each projection's IF NOT EXISTS statements and index
            # checks: hundreds of statements, most of a start's time on PostgreSQL.
            if (
                reshaped
                or search is None
                or builds.get(projection.name) != _build(projection, search)
            ):
                projection.create_tables(conn)
                # Making the search indexes may have installed the extension.
                search = search_environment(conn)
                conn.execute("DELETE FROM projection_builds WHERE name = ?", (projection.name,))
                conn.execute(
                    "INSERT INTO projection_builds (name, build) VALUES (?, ?)",
                    (projection.name, _build(projection, search)),
                )
            projection.fill(conn)
            if projection.name not in positioned:
                conn.execute(
                    "INSERT INTO projection_positions (name, position) "
                    "SELECT ?, 0 WHERE NOT EXISTS "
                    "(SELECT 1 FROM projection_positions WHERE name = ?)",
                    (projection.name, projection.name),
                )

    @staticmethod
    def _reshape(conn: Connection, projection: Projection, stored: str | None, built: bool) -> bool:
        """Tables made from other DDL than the projection's now (a new column, another
        index, a collection whose fields changed) or by an earlier revision of it are
        dropped and built again from the log; so are tables from before shapes were
        recorded. `stored` is the shape recorded for it, `built` whether it has a
        position. Whether the shape was new."""
        shape = hashlib.sha256(_shape_text(projection).encode()).hexdigest()
        if stored == shape:
            return False
        if built:
            log.warning("the tables of %s changed shape; rebuilding them", projection.name)
            projection.drop_tables(conn)
            conn.execute("DELETE FROM projection_positions WHERE name = ?", (projection.name,))
        conn.execute("DELETE FROM projection_shapes WHERE name = ?", (projection.name,))
        conn.execute(
            "INSERT INTO projection_shapes (name, shape) VALUES (?, ?)", (projection.name, shape)
        )
        return True

    def position(self, projection: Projection) -> int:
        """The log position up to which this projection's tables are written."""
        with self._db.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT position FROM projection_positions WHERE name = ?", (projection.name,)
            )
        position = int(value or 0)
        self._positions[projection.name] = position
        return position

    def lag(self, now: datetime) -> tuple[int, list[ProjectionLag]]:
        """The log head and how far each projection is behind it.

        A projection is as far as its stored position, whichever process moved it: one
        that is new or rebuilt (here or elsewhere) shows how far it has to go.
        """
        head = self._store.max_position()
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall("SELECT name, position FROM projection_positions")
        stored: dict[str, int] = {str(name): int(position) for name, position in rows}
        lags = []
        for projection in self.projections:
            position = stored.get(projection.name, 0)
            seconds = 0.0
            if position < head and projection.follows:
                oldest = self._store.read(
                    after=position, limit=1, stop=head, topics=projection.topics
                )
                # Every stored event has the time it was made (eventsourcing's events).
                made = getattr(oldest[0].event, "timestamp", None) if oldest else None
                if isinstance(made, datetime):
                    seconds = max(0.0, (now - made).total_seconds())
            lags.append(ProjectionLag(projection.name, position, max(0, head - position), seconds))
        return head, lags

    def apply_within(self, conn: Connection, events: Sequence[LoggedEvent]) -> bool:
        """Project events just appended in `conn`'s transaction, in that transaction, so
        the log entries and their rows commit together; call `applied` after the commit.

        Only when the events directly follow what every projection has applied: then the
        result is exactly what reading the log would give. Otherwise nothing is written
        and False returned; the follower projects them once they are committed.
        """
        if not events:
            return True
        first, last = events[0].position, events[-1].position
        if last - first + 1 != len(events):
            return False
        return self._project_inline(conn, first - 1, last, events)

    def pass_within(self, conn: Connection, position: int) -> bool:
        """Move every projection over the entry just appended at `position` in `conn`'s
        transaction, which none of them follows (a log dictionary), as `apply_within`
        would: else the captures after it could not project inline until the follower had
        passed it. Call `passed` after the commit."""
        return self._project_inline(conn, position - 1, position, [])

    def _project_inline(
        self, conn: Connection, old: int, new: int, events: Sequence[LoggedEvent]
    ) -> bool:
        """Move every projection from `old` to `new` and apply `events`, in `conn`'s
        transaction; when anything fails, undo all of it and answer False."""
        conn.send("SAVEPOINT inline_projection")
        try:
            # The guard of every projection's position: another runner that got there
            # first (another process projecting what was appended before) wins.
            # Pipelined, a row that failed fails in here, not at the commit.
            self._apply_batch(conn, self.projections, old, new, events)
        except Exception as exc:
            conn.rollback_to("inline_projection")
            # The events still commit; the follower projects them (and reports a fault
            # of a projection, if it is one, as it does for every event).
            if not isinstance(exc, ProjectionConflict):
                log.exception("projecting just-appended events failed; the follower will retry")
            return False
        # Not released: the commit ends it anyway, and a release is one more round trip.
        return True

    def applied(self, events: Sequence[LoggedEvent]) -> None:
        """Note that `apply_within` projected `events` and their transaction committed."""
        if events:
            self._moved_inline(events, events[0].position - 1, events[-1].position)

    def passed(self, position: int) -> None:
        """Note that `pass_within` moved the projections and its transaction committed."""
        self._moved_inline([], position - 1, position)

    def _moved_inline(self, events: Sequence[LoggedEvent], old: int, new: int) -> None:
        self._tell(events, old, new)
        self._positions.update((p.name, new) for p in self.projections)
        self._advance(new)

    def catch_up(self, progress: Callable[[int], None] | None = None) -> int:
        """Apply everything in the log up to its current head; return that head.

        `progress`, if given, is called with the number of events applied per batch.
        Every batch is applied to every projection in one transaction, in log order, so
        no reader sees one read model ahead of another: a status that says done is never
        readable before what it stands for (docs/architecture.md, "Done is readable").
        """
        with self._lock:
            head = self._store.max_position()
            self._catch_up_to(head, progress)
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

    def _catch_up_to(self, head: int, progress: Callable[[int], None] | None) -> None:
        positions = self._read_positions()
        while (low := min(positions.values(), default=head)) < head:
            # The projections furthest behind (all of them, but for one that is new or
            # rebuilt) move together; those ahead wait until they are reached, and from
            # then on move with them.
            group = [p for p in self.projections if positions[p.name] == low]
            stop = min([v for v in positions.values() if v > low] + [head])
            topics = tuple(dict.fromkeys(t for p in group for t in p.topics))
            batch = (
                self._store.read(after=low, limit=self._batch_size, stop=stop, topics=topics)
                # Tables filled as they are made (the reference lists): no event is theirs,
                # and a read with no topic to select would read every event.
                if topics
                else []
            )
            # A short batch holds everything these projections follow up to `stop`, so
            # they move there: the next poll must not search the same stretch of log again
            # (for projections of rare events, the whole log).
            full = len(batch) == self._batch_size
            if full:
                batch = self._to_end_of_capture(batch, stop, topics)
            new = batch[-1].position if full else stop
            try:
                with self._db.transaction(durable=False) as conn:
                    self._apply_batch(conn, group, low, new, batch)
            except ProjectionConflict:
                log.info("the projections were advanced by another runner")
                positions = self._read_positions()
                continue
            positions.update((p.name, new) for p in group)
            self._positions.update(positions)
            if len(group) == len(self.projections):
                self._tell(batch, low, new)
            if progress is not None and batch:
                progress(len(batch))

    def _to_end_of_capture(
        self, batch: list[LoggedEvent], stop: int, topics: Sequence[str]
    ) -> list[LoggedEvent]:
        """`batch` and the rest of the capture its last event belongs to: a capture's job,
        which says it is done, comes first in the log, so a batch must not end inside one."""
        while (capture := _capture_of(batch[-1])) is not None:
            more = self._store.read(
                after=batch[-1].position, limit=self._batch_size, stop=stop, topics=topics
            )
            same = list(takewhile(lambda e: _capture_of(e) == capture, more))
            batch.extend(same)
            if len(same) < self._batch_size:
                break
        return batch

    def _apply_batch(
        self,
        conn: Connection,
        group: Sequence[Projection],
        old: int,
        new: int,
        events: Sequence[LoggedEvent],
    ) -> None:
        """Move every projection of `group` from `old` to `new` and apply its share of
        `events`, in the caller's transaction."""
        conn.lock_shared(SCHEMA_LOCK)
        claimed = self._move(conn, group, old, new)
        if not conn.pipelined:
            claimed()
        topics = [get_topic(type(e.event)) for e in events]
        for projection in group:
            followed = self._followed[projection.name]
            mine = [e for e, topic in zip(events, topics, strict=True) if topic in followed]
            if mine:
                projection.apply(conn, mine)
        if conn.pipelined:
            # The claim is answered with the rows (no wait of its own); a claim that
            # failed wrote rows of new positions only, which the caller rolls back.
            conn.sync()
            claimed()

    def _read_positions(self) -> dict[str, int]:
        """Every projection's position as stored now."""
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall("SELECT name, position FROM projection_positions")
        stored: dict[str, int] = {str(name): int(position) for name, position in rows}
        positions = {p.name: stored.get(p.name, 0) for p in self.projections}
        self._positions.update(positions)
        return positions

    @staticmethod
    def _move(
        conn: Connection, group: Sequence[Projection], old: int, new: int
    ) -> Callable[[], None]:
        """Claim the batch first, in one statement and in one order everywhere: a racing
        runner blocks on the first position, then fails its guard, before it has written
        a single row (pipelined: before its rows are kept). The guard is returned, to be
        called once the claim is answered."""
        names = sorted(p.name for p in group)
        marks = ", ".join("?" * len(names))
        if conn.dialect.name == "postgresql":
            changed = conn.send_counted(
                "UPDATE projection_positions p SET position = ? FROM (SELECT name FROM"
                f" projection_positions WHERE name IN ({marks}) AND position = ?"
                " ORDER BY name FOR UPDATE) claimed WHERE p.name = claimed.name",
                (new, *names, old),
            )
        else:  # one writer at a time
            changed = conn.send_counted(
                "UPDATE projection_positions SET position = ?"
                f" WHERE name IN ({marks}) AND position = ?",
                (new, *names, old),
            )

        def guard() -> None:
            if changed() != len(names):
                raise ProjectionConflict(", ".join(names))

        return guard

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
                conn.lock(SCHEMA_LOCK)
                for projection in self.projections:
                    projection.drop_tables(conn)
                conn.execute("DROP TABLE IF EXISTS projection_positions")
                conn.execute("DROP TABLE IF EXISTS projection_shapes")
                conn.execute("DROP TABLE IF EXISTS projection_builds")
                self._create(conn)
            self._reached = 0
            self._positions.clear()
            self._analyzed_at = 0
        return self.catch_up(progress)
