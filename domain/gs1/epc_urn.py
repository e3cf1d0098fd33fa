"""EPC URNs (TDS 2.0) as GS1 Digital Link key paths, check digits computed.

Pure identities (`urn:epc:id:…`), the LGTIN class (`urn:epc:class:lgtin:…`) and the
class-level patterns that stand for a key without its serial (`urn:epc:idpat:sgtin:CP.IR.*`).
"""

import re
from collections.abc import Callable
from functools import lru_cache

from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.digital_link import encode_value

# One character of a TDS serial-like component: a literal or a percent-escape.
_CHAR = (
    r"(?:%2[125-9A-Fa-f]|%3[0-9A-Fa-f]|%4[1-9A-Fa-f]|%5[0-9AaFf]|%6[1-9A-Fa-f]|%7[0-9Aa]"
    r"|[!')(*+,.0-9:;=A-Za-z_-])"
)
_CPI_CHAR = r"(?:%2[3dfDF]|%3[0-9]|%4[1-9A-Fa-f]|%5[0-9Aa]|[0-9A-Z-])"
_CP = r"([0-9]{6,12})"


def _units(text: str) -> int:
    # A percent-escape is one character of the GS1 element string.
    return len(text) - 2 * text.count("%")


def gtin(company_prefix: str, item_reference: str) -> str | None:
    """GTIN-14 from a company prefix and an item reference whose first digit is the indicator."""
    if len(company_prefix) + len(item_reference) != 13 or not item_reference:
        return None
    body = item_reference[0] + company_prefix + item_reference[1:]
    return body + gs1_check_digit(body)


def keyed(company_prefix: str, reference: str, digits: int) -> str | None:
    """A GS1 key that is company prefix, reference and check digit (GLN, GDTI, GSRN, …)."""
    body = company_prefix + reference
    if len(body) != digits:
        return None
    return body + gs1_check_digit(body)


def _text(pattern: str, longest: int) -> Callable[[str], bool]:
    compiled = re.compile(rf"{pattern}+")

    def accepts(text: str) -> bool:
        if text.isascii() and text.isdigit():
            # Numeric serials are the usual case, and both character sets hold the digits.
            return len(text) <= longest
        return _units(text) <= longest and compiled.fullmatch(text) is not None

    return accepts


_SERIAL_20 = _text(_CHAR, 20)
_SERIAL_16 = _text(_CHAR, 16)
_SERIAL_17 = _text(_CHAR, 17)
_ANY_CHARS = _text(_CHAR, 30)
_CPI_REF = _text(_CPI_CHAR, 30)

_ITIP = re.compile(rf"{_CP}\.([0-9]+)\.([0-9]{{2}})\.([0-9]{{2}})\.(.+)")
_CPI = re.compile(rf"{_CP}\.(.+)\.([0-9]{{1,12}})")

# URN bodies are split with str.partition rather than regular expressions: this runs for
# every EPC captured. The company prefix holds no dot, so the first dot ends it.


def _split2(body: str) -> tuple[str, str] | None:
    """`CP.rest`: a company prefix of 6 to 12 digits, then anything on one line."""
    company_prefix, dot, rest = body.partition(".")
    if not dot or not _digits(company_prefix, 6, 12) or "\n" in rest:
        return None
    return company_prefix, rest


def _split3(body: str) -> tuple[str, str, str] | None:
    """`CP.field.rest`: a company prefix, a field without dots, then anything on one line."""
    company_prefix, _, rest = body.partition(".")
    field, second_dot, rest = rest.partition(".")
    if not second_dot or not _digits(company_prefix, 6, 12) or "\n" in rest:
        return None
    return company_prefix, field, rest


def _digits(text: str, shortest: int, longest: int) -> bool:
    # ASCII digits only, as `[0-9]` matches: str.isdigit alone accepts other scripts' digits.
    if not shortest <= len(text) <= longest:
        return False
    return not text or (text.isascii() and text.isdigit())


@lru_cache(maxsize=4096)
def _gtin_path(company_prefix: str, item_reference: str) -> str | None:
    """`01/<GTIN>/` of a company prefix and an item reference, or None when they make no
    GTIN. The company prefix has 6 to 12 digits and the item reference (indicator digit
    first) 1 to 7, 13 together: with the total checked (by `gtin`), the lower bound is
    enough. Kept: the items of a product share it, each serial costs the rest."""
    digits = company_prefix + item_reference
    if len(company_prefix) < 6 or not (digits.isascii() and digits.isdigit()):
        return None
    key = gtin(company_prefix, item_reference)
    return None if key is None else f"01/{key}/"


def _gtin_with(qualifier: str, longest: int) -> Callable[[str], str | None]:
    """A converter of `CP.IR.serial` to `01/<GTIN>/<qualifier>/<serial>`."""
    accepts = _text(_CHAR, longest)
    infix = f"{qualifier}/"

    def convert(body: str) -> str | None:
        company_prefix, _, rest = body.partition(".")
        item_reference, dot, serial = rest.partition(".")
        if not dot or not accepts(serial):
            return None
        path = _gtin_path(company_prefix, item_reference)
        return None if path is None else path + infix + encode_value(serial)

    return convert


_sgtin = _gtin_with("21", 20)
_lgtin = _gtin_with("10", 20)
_upui = _gtin_with("235", 28)


def _itip(body: str) -> str | None:
    found = _ITIP.fullmatch(body)
    if found is None or not _SERIAL_20(found[5]):
        return None
    key = gtin(found[1], found[2])
    return None if key is None else f"8006/{key}{found[3]}{found[4]}/21/{encode_value(found[5])}"


def _sscc(body: str) -> str | None:
    parts = _split2(body)
    if parts is None or not _digits(parts[1], 5, 11) or len(parts[0]) + len(parts[1]) != 17:
        return None
    # The extension digit leads, then company prefix, serial reference, check digit.
    key = parts[1][0] + parts[0] + parts[1][1:]
    return f"00/{key}{gs1_check_digit(key)}"


def _sgln(body: str) -> str | None:
    parts = _split3(body)
    if parts is None or not _digits(parts[1], 0, 6) or not _SERIAL_20(parts[2]):
        return None
    key = keyed(parts[0], parts[1], 12)
    if key is None:
        return None
    return f"414/{key}" if parts[2] == "0" else f"414/{key}/254/{encode_value(parts[2])}"


def _grai(body: str) -> str | None:
    parts = _split3(body)
    if parts is None or not _digits(parts[1], 0, 6) or not _SERIAL_16(parts[2]):
        return None
    key = keyed("0" + parts[0], parts[1], 13)
    return None if key is None else f"8003/{key}{encode_value(parts[2])}"


def _gdti(body: str) -> str | None:
    parts = _split3(body)
    if parts is None or not _digits(parts[1], 0, 6):
        return None
    if parts[2] and not _SERIAL_17(parts[2]):
        return None
    key = keyed(parts[0], parts[1], 12)
    return None if key is None else f"253/{key}{encode_value(parts[2])}"


def _sgcn(body: str) -> str | None:
    parts = _split3(body)
    if parts is None or not _digits(parts[1], 0, 6) or not _digits(parts[2], 1, 12):
        return None
    key = keyed(parts[0], parts[1], 12)
    return None if key is None else f"255/{key}{parts[2]}"


def _cpi(body: str) -> str | None:
    found = _CPI.fullmatch(body)
    if found is None or not _CPI_REF(found[2]) or len(found[1]) + _units(found[2]) > 30:
        return None
    return f"8010/{found[1]}{encode_value(found[2])}/8011/{found[3]}"


def _company_text(ai: str) -> Callable[[str], str | None]:
    def convert(body: str) -> str | None:
        parts = _split2(body)
        if parts is None or not _ANY_CHARS(parts[1]):
            return None
        if len(parts[0]) + _units(parts[1]) > 30:
            return None
        return f"{ai}/{parts[0]}{encode_value(parts[1])}"

    return convert


def _company_number(ai: str, digits: int) -> Callable[[str], str | None]:
    def convert(body: str) -> str | None:
        parts = _split2(body)
        if parts is None or not _digits(parts[1], 0, 12):
            return None
        key = keyed(parts[0], parts[1], digits)
        return None if key is None else f"{ai}/{key}"

    return convert


_PURE_IDENTITIES: dict[str, Callable[[str], str | None]] = {
    "sgtin": _sgtin,
    "sscc": _sscc,
    "sgln": _sgln,
    "grai": _grai,
    "giai": _company_text("8004"),
    "gsrn": _company_number("8018", 17),
    "gsrnp": _company_number("8017", 17),
    "gdti": _gdti,
    "cpi": _cpi,
    "sgcn": _sgcn,
    "ginc": _company_text("401"),
    "gsin": _company_number("402", 16),
    "itip": _itip,
    "upui": _upui,
    "pgln": _company_number("417", 12),
}


def class_key_path(scheme: str, fields: list[str]) -> str | None:
    """The key path of the class an EPC pattern names down to its last fixed field.

    `fields` are the pattern's fields before its `*`: `sgtin` [CP, IR] → the GTIN,
    `grai`/`gdti`/`sgcn` [CP, ref] → the key without serial, `cpi` [CP, ref] → the CPID,
    `itip` [CP, IR, piece, total] → the ITIP, `upui` [CP, IR] → the GTIN.
    """
    if not fields or not _digits(fields[0], 6, 12):
        return None
    company_prefix = fields[0]
    if scheme in ("sgtin", "upui") and len(fields) == 2 and _digits(fields[1], 1, 7):
        key = gtin(company_prefix, fields[1])
        return None if key is None else f"01/{key}"
    if scheme == "itip" and len(fields) == 4:
        if not (_digits(fields[1], 1, 7) and _digits(fields[2], 2, 2) and _digits(fields[3], 2, 2)):
            return None
        key = gtin(company_prefix, fields[1])
        return None if key is None else f"8006/{key}{fields[2]}{fields[3]}"
    if scheme in ("grai", "gdti", "sgcn") and len(fields) == 2 and _digits(fields[1], 0, 6):
        ai, lead = {"grai": ("8003", "0"), "gdti": ("253", ""), "sgcn": ("255", "")}[scheme]
        key = keyed(lead + company_prefix, fields[1], 12 + len(lead))
        return None if key is None else f"{ai}/{key}"
    if scheme == "cpi" and len(fields) == 2 and _CPI_REF(fields[1]):
        if len(company_prefix) + _units(fields[1]) > 30:
            return None
        return f"8010/{company_prefix}{encode_value(fields[1])}"
    return None


_CLASS_PATTERNS = ("sgtin", "upui", "grai", "gdti", "sgcn", "cpi", "itip")


def urn_key_path(urn: str) -> str | None:
    """The canonical Digital Link key path of an EPC URN, or None when it names no GS1 key."""
    if urn.startswith("urn:epc:id:"):
        scheme, sep, body = urn[11:].partition(":")
        convert = _PURE_IDENTITIES.get(scheme) if sep else None
        return convert(body) if convert else None
    if urn.startswith("urn:epc:class:lgtin:"):
        return _lgtin(urn[20:])
    if urn.startswith("urn:epc:idpat:") and urn.endswith(".*"):
        scheme, sep, body = urn[14:].partition(":")
        if scheme not in _CLASS_PATTERNS or not sep:
            return None
        return class_key_path(scheme, body[:-2].split("."))
    return None
