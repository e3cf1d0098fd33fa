"""How XML answers write CBV values: the form `GS1-CBV-XML-Format` asks for (CBV URN or
GS1 Web URI)."""

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from domain.epcis.cbv import VOCABULARIES, normalise_cbv


class CbvXmlFormat(StrEnum):
    """The values of the `GS1-CBV-XML-Format` header."""

    NO_PREFERENCE = "No_Preference"
    WEB_URI = "Always_Web_URI"
    URN = "Always_URN"
    NEVER_TRANSLATES = "Never_Translates"


class UnknownCbvFormat(ValueError):
    """A `GS1-CBV-XML-Format` value the binding does not define."""


def parse_cbv_xml_format(value: str | None) -> CbvXmlFormat:
    """The format a header asks for; no header is `No_Preference`."""
    if value is None or not value.strip():
        return CbvXmlFormat.NO_PREFERENCE
    wanted = value.strip().lower()
    for member in CbvXmlFormat:
        if member.value.lower() == wanted:
            return member
    raise UnknownCbvFormat(
        f"GS1-CBV-XML-Format {value.strip()!a} is not one of {', '.join(CbvXmlFormat)}"
    )


def xml_value(kind: str, value: str, cbv_format: CbvXmlFormat) -> str:
    """A CBV value of vocabulary `kind` as an XML document writes it under `cbv_format`.

    XML has no bare words nor CURIEs: where the format keeps values as captured
    (`Never_Translates`, `No_Preference`) a bare word or `cbv:` CURIE still becomes its
    CBV URN, the form XML readers of EPCIS 1.x know. Values outside the CBV's namespaces
    stay as they are.
    """
    vocabulary = VOCABULARIES[kind]
    web = normalise_cbv(kind, value)
    in_cbv = web.startswith(vocabulary.web_prefix) and vocabulary.urn_prefix is not None
    if not in_cbv:
        return value
    urn = f"{vocabulary.urn_prefix}{web[len(vocabulary.web_prefix) :]}"
    if cbv_format is CbvXmlFormat.WEB_URI:
        return web
    if cbv_format is CbvXmlFormat.URN or value not in (web, urn):
        # Asked for, or a bare word that XML cannot carry.
        return urn
    return value


#: Fields holding CBV values, with their vocabulary; a list on the way applies the rest
#: of the path to each of its items.
_CBV_FIELDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("bizStep",), "bizStep"),
    (("disposition",), "disposition"),
    (("persistentDisposition", "set"), "disposition"),
    (("persistentDisposition", "unset"), "disposition"),
    (("bizTransactionList", "type"), "bizTransactionType"),
    (("sourceList", "type"), "sourceDestType"),
    (("destinationList", "type"), "sourceDestType"),
    (("errorDeclaration", "reason"), "errorReason"),
)


def _at(value: Any, path: tuple[str, ...], kind: str, cbv_format: CbvXmlFormat) -> Any:
    if isinstance(value, list):
        return [_at(item, path, kind, cbv_format) for item in value]
    if not path:
        return xml_value(kind, value, cbv_format) if isinstance(value, str) else value
    if not isinstance(value, Mapping) or path[0] not in value:
        return value
    return {**value, path[0]: _at(value[path[0]], path[1:], kind, cbv_format)}


def cbv_values_for_xml(event: Mapping[str, Any], cbv_format: CbvXmlFormat) -> dict[str, Any]:
    """A copy of `event` with each CBV value written as `xml_value` writes it."""
    result = dict(event)
    for path, kind in _CBV_FIELDS:
        if path[0] in result:
            result[path[0]] = _at(result[path[0]], path[1:], kind, cbv_format)
    return result
