"""The stretch of the log a projection runner has shown a listener, and where in it the
newest change the listener looks for is: what lets a process tell from memory whether a
stretch changed something it keeps (`projections.access.changes`,
`projections.epcis.prefix_changes`)."""

import threading


class AppliedStretch:
    """(after, upto] shown without a gap, and the newest change in it. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None
        #: The newest position of a change shown (0: none).
        self._last_change = 0

    def shown(self, after: int, upto: int, changed: int = 0) -> None:
        """The runner showed every event in (after, upto]; `changed` is the newest
        position of a change among them (0: none)."""
        with self._lock:
            seen = self._seen
            if seen is not None and seen[0] <= after <= seen[1]:
                self._seen = (seen[0], max(seen[1], upto))
            else:  # a gap (another runner applied what lies between): start over
                self._seen = (after, upto)
            self._last_change = max(self._last_change, changed)

    def known(self, after: int, upto: int) -> bool | None:
        """Whether (after, upto] holds a change, from what was shown: None when not all
        of that stretch was."""
        with self._lock:
            seen = self._seen
            if seen is None or not seen[0] <= after or upto > seen[1]:
                return None
            # A change past `upto` (being made readable now) counts too: forgetting
            # early is always safe.
            return self._last_change > after
