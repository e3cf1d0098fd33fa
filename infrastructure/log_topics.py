"""Short topics for the log's most numerous entries.

Every row of the log names its domain event's class; eventsourcing writes the module path
(`domain.epcis.captured_event:CapturedEvent.Captured`, 51 bytes), a fifth of a captured
event's row. The events most rows hold are written under a short name instead, and read
under either, so rows written before keep theirs.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from eventsourcing.persistence import Cipher, Compressor, Mapper, StoredEvent, Transcoder

from infrastructure.log_compression import LogCompressor

#: Module-path topic → the name the log stores it under. Never change a name once
#: released: rows hold it. (A test resolves every path: a renamed class fails it.)
SHORT_TOPICS = {
    "domain.epcis.captured_event:CapturedEvent.Captured": "captured",
    "domain.epcis.captured_event:CapturedEvent.AlsoCaptured": "captured-again",
}
_FULL_TOPICS = {short: full for full, short in SHORT_TOPICS.items()}
#: Most entries compressed in one call: one wait for the interpreter lock each, and
#: at most ~1 MB of a capture's entries held uncompressed.
_COMPRESSED_TOGETHER = 1000


def stored_topics(topics: Iterable[str]) -> list[str]:
    """Every topic the log may hold rows of these classes under."""
    found = list(topics)
    return found + [SHORT_TOPICS[t] for t in found if t in SHORT_TOPICS]


class ShortTopicMapper(Mapper[str]):
    """eventsourcing's mapper, writing the short topics of `SHORT_TOPICS` and reading both."""

    def __init__(
        self,
        transcoder: Transcoder,
        compressor: Compressor | None = None,
        cipher: Cipher | None = None,
    ) -> None:
        super().__init__(transcoder, compressor, cipher)
        # The library's own steps (topic, state, class version) without the compressor.
        self._uncompressed: Mapper[str] = Mapper(transcoder)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        """The library's stored event, under its short topic where it has one."""
        return _shortened(super().to_stored_event(domain_event))

    def to_stored_events(self, domain_events: Sequence[Any]) -> list[StoredEvent]:
        """`to_stored_event` of each, their states compressed together (a capture's
        entries: `LogCompressor.compress_many`)."""
        compressor = self.compressor
        if self.cipher is not None or not isinstance(compressor, LogCompressor):
            return [self.to_stored_event(event) for event in domain_events]
        found: list[StoredEvent] = []
        # In parts, so that a large capture's entries are not all held uncompressed at once.
        for start in range(0, len(domain_events), _COMPRESSED_TOGETHER):
            part = domain_events[start : start + _COMPRESSED_TOGETHER]
            plain = [_shortened(self._uncompressed.to_stored_event(event)) for event in part]
            states = compressor.compress_many([stored.state for stored in plain])
            found.extend(
                StoredEvent(stored.originator_id, stored.originator_version, stored.topic, state)
                for stored, state in zip(plain, states, strict=True)
            )
        return found

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        """The library's domain event, from a row under either topic."""
        full = _FULL_TOPICS.get(stored_event.topic)
        if full is not None:
            stored_event = StoredEvent(
                stored_event.originator_id,
                stored_event.originator_version,
                full,
                stored_event.state,
            )
        return super().to_domain_event(stored_event)


def _shortened(stored: StoredEvent) -> StoredEvent:
    short = SHORT_TOPICS.get(stored.topic)
    if short is None:
        return stored
    return StoredEvent(stored.originator_id, stored.originator_version, short, stored.state)
