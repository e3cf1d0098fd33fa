"""Whether a stretch of the event log changed what any caller may do."""

from collections.abc import Sequence
from typing import Any

from eventsourcing.utils import get_topic

from domain.records.record import Record
from infrastructure.event_store import EventStore, LoggedEvent
from projections.applied_stretch import AppliedStretch

#: The collections an accountability is made of: the user behind a token, their role
#: chain, the policies attached to either, the permission rows, and the user's account.
ACCESS_COLLECTIONS = frozenset({"users", "roles", "policies", "access", "permissions", "accounts"})

#: Fields of a user that using the service writes (every sign-in notes `last_access`) and
#: that decide nothing about access.
_USAGE_FIELDS = frozenset({"last_access", "last_page"})

_RECORD_EVENTS = (Record.Created, Record.Updated, Record.Deleted, Record.Recreated)
_TOPICS = tuple(get_topic(cls) for cls in _RECORD_EVENTS)


def changes_access(event: Any) -> bool:
    """Whether a stored event changes a user, role, policy, attachment, permission row
    or account in a way that may change what someone may do."""
    collection, _ = Record.split_id(event.originator_id)
    if collection not in ACCESS_COLLECTIONS:
        return False
    if isinstance(event, Record.Updated) and collection == "users":
        return not set(event.changes) <= _USAGE_FIELDS
    return True


class AccessChanges:
    """Finds changes to access control in a stretch of the log: from what this process's
    projection runner applied (`applied`, in memory), else by reading the log."""

    def __init__(self, store: EventStore, most: int = 100) -> None:
        self._store = store
        # Past this many record changes (an import of master data, say) reading them
        # all costs more than resolving every caller once again.
        self._most = most
        self._stretch = AppliedStretch()

    def applied(self, events: Sequence[LoggedEvent], after: int, upto: int) -> None:
        """The projection runner applied every event it follows in (after, upto]:
        `events` (access records among them, which it follows)."""
        changed = max(
            (
                e.position
                for e in events
                if isinstance(e.event, _RECORD_EVENTS) and changes_access(e.event)
            ),
            default=0,
        )
        self._stretch.shown(after, upto, changed)

    def known(self, after: int, upto: int) -> bool | None:
        """`between` from memory, without the log: None when the runner did not show
        all of that stretch."""
        return self._stretch.known(after, upto)

    def between(self, after: int, upto: int) -> bool:
        """Whether any event after position `after`, up to `upto`, may change access:
        True too when there are more record changes than are worth reading. Blocks on
        the event store."""
        if upto <= after:
            return False
        batch = self._store.read(after=after, limit=self._most + 1, stop=upto, topics=_TOPICS)
        return len(batch) > self._most or any(changes_access(e.event) for e in batch)
