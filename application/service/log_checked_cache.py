"""What a process keeps in memory from the read models, forgotten as soon as the log
shows a change to what it was read from: what callers may do (`application.access`), what
captured documents bound CURIE prefixes to (`application.epcis.query_prefixes`).

Reading such a value takes statements, often more than a simple query's own. Every change
to the tables it comes from is an event in the one log, so a process knows when what it
kept may be stale: whenever the read models have moved (`reached`, an in-memory number),
it looks at the log up to there before it trusts anything kept.

Why this is never late in the process that made a change: a write answers only once its
events are in the read models, so the next request of that process sees `reached` past
what it had looked at, and reads the log first. Other processes see the change when
their follower takes in the log (`PROJECTION_POLL_INTERVAL`).

Why nothing stale stays kept: the log is looked at only up to `reached`, whose events
every table already holds; forgetting starts a new generation, and a value read in an
older generation (its read may have begun before the change was committed) is not kept.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

#: What `get` answers when nothing current is kept for a key.
MISSING: Any = object()


class LogCheckedCache:
    """A bounded, thread-safe map of values read from the read models, checked against
    the log."""

    def __init__(
        self,
        changed: Callable[[int, int], bool],
        reached: Callable[[], int],
        size: int,
        known: Callable[[int, int], bool | None] = lambda after, upto: None,
    ) -> None:
        """`changed(after, upto)` tells whether the log changed what is kept in that stretch
        (blocks); `known` tells the same from memory, or None when it cannot; `reached`
        is how far the read models are; `size` bounds the entries (0 keeps nothing)."""
        self._changed = changed
        self._known = known
        self._reached = reached
        self._size = size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        # Held while the log is read, so concurrent requests read it once.
        self._settling = threading.Lock()
        self._generation = 0
        #: The log position up to which changes have been looked for (None: never).
        self._checked: int | None = None

    def get(self, key: Hashable) -> Any:
        """The value kept for `key`, or MISSING when there is none or the log has moved
        since it was last looked at and what lies between is not known. Never blocks on
        the database."""
        if self._checked != self._reached() and not self._settle_known():
            return MISSING
        with self._lock:
            value = self._entries.get(key, MISSING)
            if value is not MISSING:
                self._entries.move_to_end(key)
            return value

    def read_through(self, key: Hashable, read: Callable[..., T], *args: Any) -> T:
        """The value kept for `key` once the log is taken in, else `read(*args)`, kept
        unless it is None or a change came in meanwhile. Blocks: run it in a worker
        thread."""
        self.settle()
        generation = self._generation
        with self._lock:
            kept = self._entries.get(key, MISSING)
        if kept is not MISSING:
            # The log moved without a change to what is kept: still current.
            return kept  # type: ignore[no-any-return]
        value = read(*args)
        if value is not None:
            self._put(key, value, generation)
        return value

    def _settle_known(self) -> bool:
        """`settle` from what is known without the log (a stream of captures, say), if
        that is enough and no other thread is settling; whether it was."""
        if not self._settling.acquire(blocking=False):
            return False
        try:
            target, checked = self._reached(), self._checked
            if checked is None or target < checked:
                return False
            changed = self._known(checked, target)
            if changed is None:
                return False
            if changed:
                self.forget()
            self._checked = target
            return True
        finally:
            self._settling.release()

    def settle(self) -> None:
        """Look at the log up to where the read models are, and forget everything when it
        changed what is kept (or when the read models went back: they were rebuilt). Blocks."""
        with self._settling:
            target = self._reached()
            checked = self._checked
            if checked == target:
                return
            if checked is None or target < checked:
                self.forget()
            else:
                known = self._known(checked, target)
                if known if known is not None else self._changed(checked, target):
                    self.forget()
            self._checked = target

    def forget(self) -> None:
        """Drop every entry; reads begun before are not kept either."""
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _put(self, key: Hashable, value: Any, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._size <= 0:
                return
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
