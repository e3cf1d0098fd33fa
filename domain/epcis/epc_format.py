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
    """`items` with the EPC under `key` of each converted; `items` itself when none changed."""
    if not isinstance(items, list):
        return items
    converted = items
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and isinstance(item.get(key), str):
            value = convert(item[key])
            if value != item[key]:
                if converted is items:
                    converted = list(items)
                converted[index] = {**item, key: value}
    return converted


def epcs_in_format(event: Mapping[str, Any], convert: Converter) -> Mapping[str, Any]:
    """`event` with each EPC it names passed through `convert`: a copy where one changed,
    else `event` itself (so a caller knows by identity that nothing did)."""
    # Copies only what changed and compares no more than each converted value: a page's
    # events pass through here on every query answer.
    changed: dict[str, Any] = {}
    for name in _EPC_LISTS:
        values = event.get(name)
        if isinstance(values, list):
            converted = [convert(v) if isinstance(v, str) else v for v in values]
            if converted != values:
                changed[name] = converted
    parent = event.get("parentID")
    if isinstance(parent, str) and (link := convert(parent)) != parent:
        changed["parentID"] = link
    for name, key in _NAMED_ITEMS:
        items = event.get(name)
        if items is not None and (converted := _items(items, key, convert)) is not items:
            changed[name] = converted
    for name in _PLACES:
        place = event.get(name)
        if not isinstance(place, Mapping):
            continue
        spelled = place.get("id")
        if isinstance(spelled, str) and (link := convert(spelled)) != spelled:
            changed[name] = {**place, "id": link}
    return {**event, **changed} if changed else event


def event_texts_in_format(texts: Iterable[str], convert: Converter) -> list[str]:
    """Events as JSON texts, their EPCs converted; a text whose EPCs all stay as they are
    is returned as it came (so it is not encoded again)."""
    result = []
    for text in texts:
        event = orjson.loads(text)
        converted = epcs_in_format(event, convert)
        result.append(text if converted is event else orjson.dumps(converted).decode())
    return result
