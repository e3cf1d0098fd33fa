"""GS1 identifiers: EPC URNs, GS1 Digital Link, check digits, EPC patterns."""

from domain.gs1.check_digit import gs1_check_digit
from domain.gs1.epc import canonical_epc, is_gs1_epc
from domain.gs1.patterns import Glob, Wildcard, epc_pattern

__all__ = [
    "Glob",
    "Wildcard",
    "canonical_epc",
    "epc_pattern",
    "gs1_check_digit",
    "is_gs1_epc",
]
