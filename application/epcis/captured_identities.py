"""The identity a captured event is stored under: a digest of its event ID, or in a store
whose first captured event was stored under the event ID itself, that form, for good.

Capture relies on the store refusing a second event under one identity (it does not
look for stored events first), so one store must never name one event in two ways. The
form is chosen once per store, from the log: its first captured event tells which form
it has, and a store without one takes digests. The choice is kept beside the secret, so
later starts do not look again.
"""

from eventsourcing.utils import get_topic

from domain.epcis.captured_event import ACCOUNT_ID_PREFIX, ID_PREFIX, CapturedEvent
from infrastructure.event_store import EventStore
from infrastructure.instance_store import InstanceStore

#: The instance setting that holds the chosen form.
SETTING = "captured_event_identities"
DIGEST = "digest"
EVENT_ID = "event-id"


class CapturedIdentities:
    """Names captured events in the store as the store has always named them."""

    def __init__(self, store: EventStore, instance: InstanceStore) -> None:
        chosen = instance.get(SETTING)
        if chosen is None:
            chosen = instance.get_or_create(SETTING, _form_in(store))
        #: Whether this store names events by their event ID (stores made before digests).
        self.by_event_id = chosen == EVENT_ID

    def of(self, event_id: str, account: str | None = None) -> str:
        """The store identity of the event with this event ID (in this account)."""
        if self.by_event_id:
            return CapturedEvent.legacy_id(event_id, account)
        return CapturedEvent.create_id(event_id, account)


def _form_in(store: EventStore) -> str:
    """The form of the log's first captured event; digests for a log without one."""
    topics = [get_topic(CapturedEvent.Captured), get_topic(CapturedEvent.AlsoCaptured)]
    first = store.read(0, 1, topics=topics)
    if first and first[0].event.originator_id.startswith((ID_PREFIX, ACCOUNT_ID_PREFIX)):
        return EVENT_ID
    return DIGEST
