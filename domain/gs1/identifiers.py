"""GS1 keys of master data records: checking them and deriving their standard identifiers."""

import re

from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.digital_link import encode_value

_GTIN_LENGTHS = (8, 12, 13, 14)
# GS1 AI encodable character set 82 (GS1 General Specifications §7.11).
_SET_82 = re.compile(r"[!\"%&'()*+,\-./0-9:;<=>?A-Z_a-z]*")
# The characters of set 82 that an EPC URN escapes (TDS 2.0 Table A-1). A Digital Link
# path escapes them as well, plus the ones `encode_value` handles.
_URN_ESCAPES = str.maketrans(
    {
        '"': "%22",
        "%": "%25",
        "&": "%26",
        "/": "%2F",
        "<": "%3C",
        ">": "%3E",
        "?": "%3F",
    }
)
# EPC URNs carry company prefixes of 6 to 12 digits only (TDS 2.0).
_SHORTEST_EPC_PREFIX = 6


class IdentifierError(ValueError):
    """A malformed GS1 key or qualifier; `field` names it and the message says what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f'"{field}" {problem}')
        self.field = field
        self.problem = problem


def _digits(value: str, field: str) -> str:
    value = value.strip()
    # str.isdigit alone accepts other scripts' digits, which no GS1 key holds. An empty
    # value is left to the length check, whose message fits it better.
    if value and not (value.isascii() and value.isdigit()):
        raise IdentifierError(field, "may hold only the digits 0-9")
    return value


def _checked(value: str, field: str) -> str:
    expected = gs1_check_digit(value[:-1])
    if value[-1] != expected:
        raise IdentifierError(field, f"{value} has a bad check digit: expected {expected}")
    return value


def _set_82(value: str, field: str) -> str:
    value = value.strip()
    if not 1 <= len(value) <= 20:
        raise IdentifierError(field, f"must be 1 to 20 characters, got {len(value)}")
    if _SET_82.fullmatch(value) is None:
        bad = next(char for char in value if _SET_82.fullmatch(char) is None)
        raise IdentifierError(field, f"holds {bad!r}, which is not in GS1 AI character set 82")
    return value


def _urn_component(value: str) -> str:
    return value.translate(_URN_ESCAPES)


def _path_value(value: str) -> str:
    # Escaped exactly as the canonical form of the same value arriving in an EPC URN, so
    # both spellings of one key meet in `canonical_epc`.
    return encode_value(_urn_component(value))


def normalise_gtin(value: str, field: str = "gtin") -> str:
    """A GTIN-8, -12, -13 or -14 with a valid check digit, as the 14 digits Digital Link uses."""
    value = _digits(value, field)
    if len(value) not in _GTIN_LENGTHS:
        raise IdentifierError(field, f"must be 8, 12, 13 or 14 digits, got {len(value)}")
    # Leading zeros weigh nothing in the check digit: check the value as given.
    return _checked(value, field).zfill(14)


def check_gln(value: str, field: str = "gln") -> str:
    """A GLN (or PGLN): 13 digits with a valid check digit."""
    value = _digits(value, field)
    if len(value) != 13:
        raise IdentifierError(field, f"must be 13 digits, got {len(value)}")
    return _checked(value, field)


def check_company_prefix(value: str, field: str = "organisation_company_prefix") -> str:
    """A GS1 company prefix: 4 to 12 digits, no check digit."""
    value = _digits(value, field)
    # U.P.C. company prefixes and some GS1 ones are shorter than the usual 7 digits.
    if not 4 <= len(value) <= 12:
        raise IdentifierError(field, f"must be 4 to 12 digits, got {len(value)}")
    return value


def check_gln_extension(value: str, field: str = "gln_extension") -> str:
    """A GLN extension (AI 254): 1 to 20 characters of GS1 AI character set 82."""
    return _set_82(value, field)


def check_lot_number(value: str, field: str = "lot_number") -> str:
    """A batch or lot number (AI 10): 1 to 20 characters of GS1 AI character set 82."""
    return _set_82(value, field)


def _extension(extension: str | None) -> str | None:
    # An empty extension is none given; "0" is how an SGLN says "no extension".
    if extension is None or not extension.strip():
        return None
    extension = check_gln_extension(extension)
    return None if extension == "0" else extension


def product_path(gtin: str) -> str:
    """The Digital Link path of a trade item: `/01/<GTIN-14>`."""
    return "/01/" + normalise_gtin(gtin)


def location_path(gln: str, extension: str | None = None) -> str:
    """The Digital Link path of a location: `/414/<GLN>`, plus `/254/<extension>` unless "0"."""
    path = "/414/" + check_gln(gln)
    extension = _extension(extension)
    return path if extension is None else f"{path}/254/{_path_value(extension)}"


def organisation_path(pgln: str) -> str:
    """The Digital Link path of a party: `/417/<PGLN>`."""
    return "/417/" + check_gln(pgln, "pgln")


def lot_path(gtin: str, lot_number: str) -> str:
    """The Digital Link path of a lot of a trade item: `/01/<GTIN-14>/10/<lot>`, percent-encoded."""
    return f"{product_path(gtin)}/10/{_path_value(check_lot_number(lot_number))}"


def digital_link(base: str, path: str) -> str:
    """A Digital Link URI: the resolver `base` (e.g. `https://id.example.com`) joined to `path`."""
    return base.rstrip("/") + "/" + path.lstrip("/")


def sgln(gln: str, extension: str | None, company_prefix: str | None) -> str | None:
    """The SGLN EPC URN of a location, or None without a company prefix that starts the GLN.

    A prefix under 6 digits gives None too: EPC URNs cannot carry it.
    """
    gln = check_gln(gln)
    if company_prefix is None or not company_prefix.strip():
        return None
    prefix = check_company_prefix(company_prefix)
    if len(prefix) < _SHORTEST_EPC_PREFIX or not gln.startswith(prefix):
        return None
    location_reference = gln[len(prefix) : 12]
    extension = _urn_component(_extension(extension) or "0")
    return f"urn:epc:id:sgln:{prefix}.{location_reference}.{extension}"


def lgtin(gtin: str, company_prefix: str, lot_number: str) -> str:
    """The LGTIN EPC class URN of a lot (`urn:epc:class:lgtin:<prefix>.<indicator+item
    reference>.<lot>`); IdentifierError when the prefix does not start the GTIN."""
    gtin = normalise_gtin(gtin)
    prefix = check_company_prefix(company_prefix)
    if len(prefix) < _SHORTEST_EPC_PREFIX or gtin[1 : 1 + len(prefix)] != prefix:
        raise IdentifierError("organisation_company_prefix", "does not start the GTIN")
    item_reference = gtin[0] + gtin[1 + len(prefix) : 13]
    lot = _urn_component(check_lot_number(lot_number))
    return f"urn:epc:class:lgtin:{prefix}.{item_reference}.{lot}"
