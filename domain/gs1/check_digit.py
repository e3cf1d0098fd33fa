"""The GS1 mod-10 check digit (GS1 General Specifications §7.9.1)."""

from functools import lru_cache


# The same GTINs and GLNs come back with every serial number.
@lru_cache(maxsize=8192)
def gs1_check_digit(digits: str) -> str:
    """The check digit for a GS1 key given without it (GTIN, GLN, SSCC, GRAI, GDTI, GSRN, …)."""
    # Weights alternate 3, 1, 3, … starting from the rightmost digit.
    if digits.isascii():
        # Summing bytes runs in C: take every other byte from the right, then the '0's off.
        codes = digits.encode()
        tripled = codes[::-2]
        single = codes[-2::-2]
        total = 3 * (sum(tripled) - 48 * len(tripled)) + sum(single) - 48 * len(single)
    else:
        total = 0
        for position, digit in enumerate(reversed(digits)):
            value = ord(digit) - 48
            total += value * 3 if position % 2 == 0 else value
    return str(-total % 10)
