"""An event sent alone (`POST /v2/epcis/events`) as the one-event document capture reads,
and capture's findings about that document as findings about the event."""

from collections.abc import Iterable, Mapping
from typing import Any

from domain.epcis.outbound import EPCIS_CONTEXT
from domain.epcis.violations import Violation

_IN_EVENT = "epcisBody.eventList.0"


def shape_violation(body: Any) -> Violation | None:
    """Why a request body is not one event, if it is not."""
    if not isinstance(body, Mapping):
        return Violation("(root)", "The body is not an EPCIS event (a JSON object)")
    if body.get("type") in ("EPCISDocument", "EPCISQueryDocument"):
        return Violation(
            "type",
            f"{body['type']} is a document: POST /events takes one event, "
            "POST /capture takes documents",
        )
    return None


def event_document(event: Mapping[str, Any], created: str) -> dict[str, Any]:
    """The EPCISDocument holding `event` alone. The event's `@context` becomes the
    document's (for a lone event the two are one); without one, the EPCIS context."""
    own = dict(event)
    context = own.pop("@context", [EPCIS_CONTEXT])
    return {
        "@context": context,
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": created,
        "epcisBody": {"eventList": [own]},
    }


def in_event(violations: Iterable[Violation]) -> list[Violation]:
    """Violations found in the one-event document, placed in the event sent
    (`epcisBody.eventList.0.action` is `action`; the event itself is `(root)`)."""
    placed = []
    for violation in violations:
        location = violation.location
        if location == _IN_EVENT:
            location = "(root)"
        elif location.startswith(_IN_EVENT + "."):
            location = location[len(_IN_EVENT) + 1 :]
        placed.append(Violation(location, violation.reason))
    return placed
