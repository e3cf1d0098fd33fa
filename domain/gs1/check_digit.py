"""The GS1 mod-10 check digit (GS1 General Specifications §7.9.1)."""

from functools import lru_cache


# The same GTINs and GLNs come back with every serial number.
@lru_cache(maxsize=8192)
def gs1_check_digit(digits: str) -> str:
    """The check digit for a GS1 key given without it (GTIN, GLN, SSCC, GRAI, GDTI, GSRN, …).

    `digits` are ASCII digits, as callers check first; for anything else the answer means
    nothing.
    """
    # Weights alternate 3, 1, 3, … from the rightmost digit. Summing bytes runs in C: take
    # every other byte from the right, then the '0's off.
    codes = digits.encode("ascii", "replace")
    tripled = codes[::-2]
    single = codes[-2::-2]
    total = 3 * (sum(tripled) - 48 * len(tripled)) + sum(single) - 48 * len(single)
    return str(-total % 10)
