"""`GS1-EPC-Format`: the form the EPCs of returned events take (Digital Link or EPC URN).

Only the fields that hold EPCs change: EPC lists, parent, quantity classes, the ids of
readPoint and bizLocation, sources, destinations and business transactions. Values that
are no GS1 key (private URNs, other URIs, CURIEs) stay as captured.
"""

from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any

import orjson

from domain.gs1 import canonical_epc
from domain.gs1.link_to_urn import CompanyPrefixes, epc_urn

#: Turns one EPC into the requested form (returning it unchanged where it cannot).
Converter = Callable[[str], str]


class EpcFormat(StrEnum):
    """The values of the `GS1-EPC-Format` header."""

    NO_PREFERENCE = "No_Preference"
    DIGITAL_LINK = "Always_GS1_Digital_Link"
    EPC_URN = "Always_EPC_URN"
    NEVER_TRANSLATES = "Never_Translates"


#: The format of an answer to a request without the header (openapi.yaml's parameter
#: description of `GS1-EPC-Format`).
DEFAULT_EPC_FORMAT = EpcFormat.DIGITAL_LINK


class UnknownEpcFormat(ValueError):
    """A `GS1-EPC-Format` value the binding does not define."""


def parse_epc_format(value: str | None) -> EpcFormat:
    """The format a header asks for; no header is `DEFAULT_EPC_FORMAT`."""
    if value is None or not value.strip():
        return DEFAULT_EPC_FORMAT
    wanted = value.strip().lower()
    for member in EpcFormat:
        if member.value.lower() == wanted:
            return member
    raise UnknownEpcFormat(f"GS1-EPC-Format {value.strip()!a} is not one of {', '.join(EpcFormat)}")


def applied_format(epc_format: EpcFormat) -> EpcFormat:
    """The format an answer is given in: `No_Preference` leaves the choice to the server,
    which keeps EPCs as captured (nothing to convert, and what was sent is kept)."""
    return EpcFormat.NEVER_TRANSLATES if epc_format is EpcFormat.NO_PREFERENCE else epc_format


def epc_converter(epc_format: EpcFormat, prefixes: CompanyPrefixes) -> Converter | None:
    """How EPCs are converted for `epc_format`, or None when they stay as captured.

    Digital Link is the canonical one on `https://id.gs1.org/`. An EPC URN needs the
    company prefix of a Digital Link: where none of `prefixes` fits, the EPC stays as
    captured (the binding defines no error for it, and a guessed length names another key).
    """
    if epc_format is EpcFormat.DIGITAL_LINK:
        return canonical_epc
    if epc_format is EpcFormat.EPC_URN:
        return lambda epc: epc_urn(epc, prefixes) or epc
    return None


_EPC_LISTS = ("epcList", "childEPCs", "inputEPCList", "outputEPCList")
_QUANTITY_LISTS = ("quantityList", "childQuantityList", "inputQuantityList", "outputQuantityList")
_PLACES = ("readPoint", "bizLocation")
#: List fields whose items name an EPC under a key of their own.
_NAMED_ITEMS = (
    ("quantityList", "epcClass"),
    ("childQuantityList", "epcClass"),
    ("inputQuantityList", "epcClass"),
    ("outputQuantityList", "epcClass"),
    ("sourceList", "source"),
    ("destinationList", "destination"),
    ("bizTransactionList", "bizTransaction"),
)


def _items(items: Any, key: str, convert: Converter) -> Any:
    if not isinstance(items, list):
        return items
    return [
        {**item, key: convert(item[key])}
        if isinstance(item, Mapping) and isinstance(item.get(key), str)
        else item
        for item in items
    ]


def epcs_in_format(event: Mapping[str, Any], convert: Converter) -> dict[str, Any]:
    """A copy of `event` with each EPC it names passed through `convert`."""
    result = dict(event)
    for name in _EPC_LISTS:
        values = event.get(name)
        if isinstance(values, list):
            result[name] = [convert(v) if isinstance(v, str) else v for v in values]
    parent = event.get("parentID")
    if isinstance(parent, str):
        result["parentID"] = convert(parent)
    for name, key in _NAMED_ITEMS:
        if name in event:
            result[name] = _items(event[name], key, convert)
    for name in _PLACES:
        place = event.get(name)
        if isinstance(place, Mapping) and isinstance(place.get("id"), str):
            result[name] = {**place, "id": convert(place["id"])}
    return result


def event_texts_in_format(texts: Iterable[str], convert: Converter) -> list[str]:
    """Events as JSON texts, their EPCs converted; a text whose EPCs all stay as they are
    is returned as it came (so it is not encoded again)."""
    result = []
    for text in texts:
        event = orjson.loads(text)
        converted = epcs_in_format(event, convert)
        result.append(text if converted == event else orjson.dumps(converted).decode())
    return result
