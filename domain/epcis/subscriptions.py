"""EPCIS 2.0 subscriptions: what a client asks for (webhook controls), and how a delivery
is signed."""

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from domain.epcis.timestamps import parse_timestamp

#: The fields of a schedule, as cron has them (EPCIS 2.0 `schedule`).
SCHEDULE_FIELDS = ("second", "minute", "hour", "dayOfMonth", "month", "dayOfWeek")
_KNOWN = frozenset(
    {"dest", "signatureToken", "reportIfEmpty", "stream", "schedule", "initialRecordTime"}
)


class SubscriptionControlsError(ValueError):
    """The subscription's controls do not make sense; the message says why."""


@dataclass(frozen=True)
class SubscriptionRequest:
    """A webhook subscription as asked for."""

    dest: str
    signature_token: str | None
    report_if_empty: bool
    stream: bool
    schedule: dict[str, str] | None
    initial_record_time: str | None


def parse_subscription(body: Any, *, extra: frozenset[str] = frozenset()) -> SubscriptionRequest:
    """The controls of a subscription body; SubscriptionControlsError when they are not
    valid. `extra` names further keys the caller reads itself (`queryName`)."""
    if not isinstance(body, dict):
        raise SubscriptionControlsError("The body must be a JSON object")
    unknown = sorted(set(body) - _KNOWN - extra)
    if unknown:
        raise SubscriptionControlsError(f"Unknown subscription control '{unknown[0]}'")
    dest = body.get("dest")
    if not isinstance(dest, str) or not dest.startswith(("http://", "https://")):
        raise SubscriptionControlsError("'dest' must be an http(s) URL")
    token = body.get("signatureToken")
    if token is not None and (not isinstance(token, str) or not token):
        raise SubscriptionControlsError("'signatureToken' must be a non-empty string")
    report = body.get("reportIfEmpty", False)
    stream = body.get("stream", False)
    if not isinstance(report, bool) or not isinstance(stream, bool):
        raise SubscriptionControlsError("'reportIfEmpty' and 'stream' are true or false")
    schedule = _schedule(body.get("schedule"))
    if stream == (schedule is not None):
        raise SubscriptionControlsError("Give either 'stream': true or a 'schedule', not both")
    initial = body.get("initialRecordTime")
    if initial is not None:
        try:
            parse_timestamp(str(initial))
        except ValueError as exc:
            raise SubscriptionControlsError(
                f"'initialRecordTime' is not a date-time: {exc}"
            ) from exc
    return SubscriptionRequest(dest, token, report, stream, schedule, initial)


def _schedule(value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise SubscriptionControlsError(
            f"'schedule' is an object with some of {', '.join(SCHEDULE_FIELDS)}"
        )
    unknown = sorted(set(value) - set(SCHEDULE_FIELDS))
    if unknown:
        raise SubscriptionControlsError(f"Unknown schedule field '{unknown[0]}'")
    if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value.values()):
        raise SubscriptionControlsError("Schedule fields are cron expressions (text or numbers)")
    return {k: str(v) for k, v in value.items()}


def signature(token: str, body: bytes) -> str:
    """The `GS1-Signature` of a delivery: HMAC-SHA256 of the body with the token, hex."""
    return hmac.new(token.encode(), body, hashlib.sha256).hexdigest()
