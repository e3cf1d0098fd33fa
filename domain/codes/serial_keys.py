"""The GS1 keys that are built from parts: SSCC (AI 00) and GRAI (AI 8003)."""

from domain.gs1.check_digit import gs1_check_digit

#: SSCC digits before the check digit: extension, company prefix, serial reference.
SSCC_BODY = 17
#: A GRAI's fixed part after its leading zero: company prefix and asset type.
GRAI_PREFIX_AND_ASSET = 12
#: The longest serial a GRAI may carry (GS1 General Specifications, AI 8003).
GRAI_MAX_SERIAL = 16


class KeyPartsError(ValueError):
    """The parts cannot make a valid key; the message says why."""


def _digits(value: str, what: str, low: int, high: int) -> str:
    if not value.isascii() or not value.isdigit() or not low <= len(value) <= high:
        raise KeyPartsError(f"{what} must be {low} to {high} digits, not {value!r}")
    return value


def serial_reference_capacity(company_prefix: str) -> int:
    """How many serial references an SSCC with this company prefix can hold."""
    return int(10 ** (SSCC_BODY - 1 - len(company_prefix)))


def check_sscc_prefix(company_prefix: str) -> str:
    """A GS1 company prefix usable in an SSCC (6 to 12 digits)."""
    return _digits(company_prefix, "An SSCC company prefix", 6, 12)


def sscc(extension_digit: int, company_prefix: str, serial_reference: int) -> str:
    """The 18-digit SSCC with its check digit."""
    if not 0 <= extension_digit <= 9:
        raise KeyPartsError(f"The extension digit must be 0 to 9, not {extension_digit}")
    check_sscc_prefix(company_prefix)
    width = SSCC_BODY - 1 - len(company_prefix)
    if not 0 <= serial_reference < 10**width:
        raise KeyPartsError(
            f"Serial reference {serial_reference} does not fit in {width} digits"
            f" after company prefix {company_prefix}"
        )
    body = f"{extension_digit}{company_prefix}{serial_reference:0{width}d}"
    return body + gs1_check_digit(body)


def grai_prefix(company_prefix: str, asset_type: str) -> str:
    """The first 14 characters of a GRAI: '0', company prefix, asset type, check digit."""
    _digits(company_prefix, "A GRAI company prefix", 6, 12)
    _digits(asset_type, "A GRAI asset type", 0, 6)
    if len(company_prefix) + len(asset_type) != GRAI_PREFIX_AND_ASSET:
        raise KeyPartsError(
            "A GRAI's company prefix and asset type make 12 digits together, not "
            f"{len(company_prefix) + len(asset_type)}"
        )
    body = f"0{company_prefix}{asset_type}"
    return body + gs1_check_digit(body)
