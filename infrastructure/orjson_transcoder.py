"""An orjson transcoder for the event store, wire-compatible with eventsourcing's JSON one.

The library's JSONTranscoder calls a Python hook for every JSON object it decodes, which
made reading the log the slowest step of projecting. Our domain events carry typed values
(datetimes) only at their top level, so decoding can stay in orjson and convert just
those; the stored bytes keep the library's `{"_type_", "_data_"}` form.
"""

from datetime import datetime
from typing import Any

import orjson
from eventsourcing.persistence import Transcoder

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def _encode_typed(value: Any) -> Any:
    if isinstance(value, datetime):
        return {"_type_": "datetime_iso", "_data_": value.isoformat()}
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class OrjsonTranscoder(Transcoder):
    """Encodes domain event state with orjson; datetimes as the library encodes them."""

    def encode(self, obj: Any) -> bytes:
        """Encode an event's state."""
        return orjson.dumps(obj, default=_encode_typed, option=_OPTIONS)

    def decode(self, data: bytes) -> Any:
        """Decode an event's state, restoring top-level datetimes."""
        state = orjson.loads(data)
        if isinstance(state, dict):
            for key, value in state.items():
                if (
                    isinstance(value, dict)
                    and len(value) == 2
                    and value.get("_type_") == "datetime_iso"
                ):
                    state[key] = datetime.fromisoformat(value["_data_"])
        return state
