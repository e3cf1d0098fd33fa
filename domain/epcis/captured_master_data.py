"""Master data a capture carried: an immutable aggregate, one per capture that had any."""

from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import event
from eventsourcing.utils import get_topic

from domain.aggregate import Aggregate


class CapturedMasterData(Aggregate):
    """The vocabulary list of one capture document's header, as the client sent it."""

    @staticmethod
    def create_id(capture_id: str) -> str:
        """The store identity of the master data of this capture."""
        return "epcis-master-data:" + capture_id

    @dataclass(frozen=True)
    class Captured(Aggregate.Created):
        """A capture document brought master data."""

        capture_id: str
        vocabulary_list: list[dict[str, Any]]
        namespaces: dict[str, str]
        record_time: str
        account: str | None

    @classmethod
    def captured(
        cls,
        capture_id: str,
        vocabulary_list: list[dict[str, Any]],
        namespaces: dict[str, str],
        record_time: str,
        account: str | None,
    ) -> "CapturedMasterData.Captured":
        """The event recording it, without building the aggregate (it never changes)."""
        return cls.Captured(
            originator_id=cls.create_id(capture_id),
            originator_version=cls.INITIAL_VERSION,
            timestamp=cls.Captured.create_timestamp(),
            originator_topic=_TOPIC,
            capture_id=capture_id,
            vocabulary_list=vocabulary_list,
            namespaces=namespaces,
            record_time=record_time,
            account=account,
        )

    @event(Captured)
    def __init__(
        self,
        capture_id: str,
        vocabulary_list: list[dict[str, Any]],
        namespaces: dict[str, str],
        record_time: str,
        account: str | None,
    ) -> None:
        self.capture_id = capture_id
        self.vocabulary_list = vocabulary_list
        self.namespaces = namespaces
        self.record_time = record_time
        self.account = account


_TOPIC = get_topic(CapturedMasterData)
