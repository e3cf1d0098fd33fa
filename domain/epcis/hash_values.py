"""Values as the CBV 2.0 event hash writes them: CBV URNs as Web URIs, numbers without
trailing zeros, EPCs as Digital Link, date-times in UTC at millisecond precision."""

import math
import re
from datetime import datetime, timedelta
from functools import lru_cache

from domain.epcis.cbv import replace_cbv_urns
from domain.gs1 import canonical_epc


def canonical_text(text: str) -> str:
    """A value with CBV URNs as Web URIs, numbers in canonical form, EPCs as Digital Link."""
    return canonical_epc(number(replace_cbv_urns(text)))


# Values repeat across events (places, classes, vocabulary): remember their canonical form.
# EPCs do not (each object is captured anew), so EPC lists call `canonical_text` directly.
canonical_value = lru_cache(maxsize=65536)(canonical_text)


def number(text: str) -> str:
    """A numeric text in Python's shortest float spelling, integral values without `.0`."""
    first = text[0]
    if (first.isascii() and first.isalpha() and first not in "iInN") or ":" in text:
        return text
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return str(int(number)) if number.is_integer() else str(number)


# A date-time already in the canonical form: UTC, milliseconds, `Z`. Hours stop at 23:
# whatever `datetime` makes of 24:00, it is left to `datetime` to make it.
CANONICAL_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
)


def utc_milliseconds(text: str) -> str:
    """An ISO 8601 date-time in UTC at millisecond precision, e.g. `2020-04-01T14:00:00.000Z`.

    Microseconds round half to even to milliseconds, as the reference does; a date-time
    without offset is taken as UTC.
    """
    if CANONICAL_TIME.fullmatch(text):
        # Most producers write this form: parsing it would give it back, or fail on an
        # impossible date (30 February) and so give it back as written all the same.
        return text
    try:
        moment = datetime.fromisoformat(text)
        micros = moment.microsecond
        millis, remainder = divmod(micros, 1000)
        if remainder:
            if remainder > 500 or (remainder == 500 and millis % 2 == 1):
                millis += 1
            # Rounding up to 1000 ms carries into the second (and so on): let datetime do it.
            moment += timedelta(microseconds=millis * 1000 - micros)
        offset = moment.utcoffset()
        if offset:
            moment -= offset
    except (ValueError, OverflowError):
        return text
    # isoformat() opens with `YYYY-MM-DDTHH:MM:SS` whatever follows, and is much quicker
    # without `timespec` (and than replace(tzinfo=None)). An offset may carry microseconds.
    return f"{moment.isoformat()[:19]}.{moment.microsecond // 1000:03d}Z"
