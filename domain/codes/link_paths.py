"""The paths of scanned GS1 Digital Link URIs: which code a scan names, and the path of a code."""

from dataclasses import dataclass
from urllib.parse import quote, unquote

from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.identifiers import IdentifierError, check_lot_number, normalise_gtin

KINDS = ("sgtin", "sscc", "grai", "short_code")

_SSCC_LENGTH = 18
# AI 8003: a '0' filler, 12 digits of company prefix and asset type, the check digit over
# those 13, then an optional serial of up to 16 characters.
_GRAI_KEY_LENGTH = 14
_GRAI_SERIAL_MAX = 16
_SHORT_CODE_LENGTHS = range(6, 21)


@dataclass(frozen=True)
class ScannedKey:
    """The code a scan names: `kind` is one of KINDS; `serial` and `lot` come with an sgtin."""

    kind: str
    key: str
    serial: str | None = None
    lot: str | None = None


def _ascii_digits(value: str) -> bool:
    # str.isdigit alone accepts other scripts' digits, which no GS1 key holds.
    return value.isascii() and value.isdigit()


def _set_82(value: str) -> bool:
    # check_lot_number strips whitespace first; whitespace is not in set 82, so a value it
    # changes was not valid as scanned.
    try:
        return check_lot_number(value) == value
    except IdentifierError:
        return False


def _gtin(value: str) -> str | None:
    if not _ascii_digits(value):
        return None
    try:
        return normalise_gtin(value)
    except IdentifierError:
        return None


def _sgtin(segments: list[str]) -> ScannedKey | None:
    # segments: "01", gtin, then AI/value pairs. Digital Link puts 10 before 21; scanners
    # and hand-built links also send 21 before 10.
    gtin = _gtin(segments[1])
    if gtin is None:
        return None
    pairs = segments[2:]
    ais = tuple(pairs[::2])
    if ais not in (("21",), ("10", "21"), ("21", "10")):
        return None
    values = dict(zip(ais, pairs[1::2], strict=True))
    serial = values["21"]
    lot = values.get("10")
    if not _set_82(serial) or (lot is not None and not _set_82(lot)):
        return None
    return ScannedKey("sgtin", gtin, serial=serial, lot=lot)


def _sscc(value: str) -> ScannedKey | None:
    if len(value) != _SSCC_LENGTH or not _ascii_digits(value):
        return None
    if gs1_check_digit(value[:-1]) != value[-1]:
        return None
    return ScannedKey("sscc", value)


def _grai(value: str) -> ScannedKey | None:
    key, serial = value[:_GRAI_KEY_LENGTH], value[_GRAI_KEY_LENGTH:]
    if len(key) != _GRAI_KEY_LENGTH or not _ascii_digits(key) or key[0] != "0":
        return None
    if gs1_check_digit(key[:13]) != key[13]:
        return None
    if serial and (len(serial) > _GRAI_SERIAL_MAX or not _set_82(serial)):
        return None
    return ScannedKey("grai", value)


def _short_code(value: str) -> ScannedKey | None:
    if len(value) in _SHORT_CODE_LENGTHS and value.isascii() and value.isalnum():
        return ScannedKey("short_code", value)
    return None


def parse_scan_path(path: str) -> ScannedKey | None:
    """The code a Digital Link path (leading slash, no query) names, or None for any other path.

    Keys with a bad check digit and values outside GS1 AI character set 82 give None.
    """
    if not path.startswith("/"):
        return None
    # Split before decoding, so an encoded '/' stays inside its value.
    segments = [unquote(segment) for segment in path[1:].split("/")]
    if any(not segment for segment in segments):
        return None
    match segments:
        case ["01", _, *rest] if len(rest) in (2, 4):
            return _sgtin(segments)
        case ["00", sscc]:
            return _sscc(sscc)
        case ["8003", grai]:
            return _grai(grai)
        case [code]:
            return _short_code(code)
    return None


def link_path(kind: str, key: str, serial: str | None = None) -> str:
    """The Digital Link path of a code; an sgtin needs its serial and takes any GTIN length.

    Raises ValueError (IdentifierError for a bad GTIN) when the path cannot be made.
    """
    if kind == "sgtin":
        if serial is None:
            raise ValueError("an sgtin's link path needs its serial")
        return f"/01/{normalise_gtin(key)}/21/{quote(serial, safe='')}"
    if kind == "sscc":
        return f"/00/{key}"
    if kind == "grai":
        return f"/8003/{quote(key, safe='')}"
    if kind == "short_code":
        return f"/{quote(key, safe='')}"
    raise ValueError(f"unknown code kind {kind!r}: expected one of {', '.join(KINDS)}")
