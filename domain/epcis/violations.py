"""Why an EPCIS document or event was rejected: a location and a reason per violation."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: `location` is `(root)` or a dotted path such as
    `epcisBody.eventList.0.readPoint.id`; `reason` says what is wrong there."""

    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


def event_index(violation: Violation) -> int | None:
    """The index of the event in `epcisBody.eventList` a violation points into, if any."""
    parts = violation.location.split(".", 3)
    if parts[:2] == ["epcisBody", "eventList"] and len(parts) > 2 and parts[2].isdigit():
        return int(parts[2])
    return None
