"""EPCIS time values: ISO 8601 with an offset, held as microseconds since the epoch."""

from datetime import UTC, datetime

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class InvalidTimestamp(ValueError):
    """A time value that is not ISO 8601 with a time zone offset."""


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO 8601 date-time that carries an offset (`Z`, `+02:00`, `-0530`)."""
    text = value.strip()
    # In a query string an unencoded '+' arrives as a space: `10:00:00 02:00`.
    if len(text) > 19 and text[-6] == " " and text[-3] == ":":
        text = text[:-6] + "+" + text[-5:]
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise InvalidTimestamp(f"'{value}' is not an ISO 8601 date-time") from exc
    if parsed.tzinfo is None:
        raise InvalidTimestamp(f"'{value}' has no time zone offset (add Z or +HH:MM)")
    return parsed


def to_micros(moment: datetime) -> int:
    """Microseconds since 1970-01-01T00:00:00Z: sortable and the same on every database."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def timestamp_micros(value: str) -> int:
    """Parse an ISO 8601 date-time with offset straight to microseconds since the epoch."""
    return to_micros(parse_timestamp(value))


def format_record_time(moment: datetime) -> str:
    """Render a record time the way EPCIS documents show it: UTC, milliseconds, `Z`."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
