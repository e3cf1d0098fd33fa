"""What an identifier job will make: the checks on its fields, and how its codes look.

The same checks answer a request that creates a job (400) and the worker that runs it
(status error), so a job that was valid when created but no longer is (its product lost
its GTIN) fails with the same words.
"""

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from domain.codes.character_sets import CHARACTER_SETS, code_space
from domain.codes.link_paths import link_path
from domain.codes.serial_keys import (
    GRAI_MAX_SERIAL,
    KeyPartsError,
    check_sscc_prefix,
    grai_prefix,
    serial_reference_capacity,
    sscc,
)
from domain.gs1.identifiers import IdentifierError, normalise_gtin

#: A GS1 serial (AI 21) holds at most 20 characters.
MAX_SERIAL = 20
#: Nearly full code spaces up to this size are enumerated to find the free codes.
ENUMERABLE_SPACE = 20_000_000


class PlanError(ValueError):
    """The job cannot be done as asked; the message says why."""


@dataclass(frozen=True)
class JobPlan:
    """How a job's codes are made and where they point."""

    type: str
    #: Codes are unique within a scope: one GTIN's serials, all SSCCs, one GRAI's assets.
    scope: str
    quantity: int
    length: int
    character_set: str
    link_base: str
    gtin: str | None = None
    #: What every code starts with (a GRAI's fixed part).
    prefix: str = ""
    sscc_extension_digit: int = 0
    sscc_company_prefix: str = ""
    sscc_start_serial: int = 0

    @property
    def sequential(self) -> bool:
        """SSCCs count up; every other type is drawn at random."""
        return self.type == "sscc"

    @property
    def code_length(self) -> int:
        """The length of a whole code of this plan (random types)."""
        return len(self.prefix) + self.length

    @property
    def space(self) -> int:
        """How many codes the plan can make in all."""
        if self.sequential:
            return serial_reference_capacity(self.sscc_company_prefix) - self.sscc_start_serial
        return code_space(self.character_set, self.length)

    @property
    def link_head(self) -> str:
        """What the Digital Link URIs of the plan's codes start with, up to the code.

        Generated codes are letters and digits, which a URI path carries as they are, so
        a link is this head and the code (the same as `link_path` gives).
        """
        if self.type == "sgtin":
            assert self.gtin is not None
            head = link_path("sgtin", self.gtin, "")
        else:
            head = link_path(self.type, "")
        return self.link_base.rstrip("/") + head

    def ssccs(self, offset: int, count: int) -> list[str]:
        """The SSCCs at `offset` … `offset + count - 1` of the job."""
        first = self.sscc_start_serial + offset
        return [
            sscc(self.sscc_extension_digit, self.sscc_company_prefix, serial)
            for serial in range(first, first + count)
        ]

    def sscc_bounds(self, offset: int) -> tuple[str, str]:
        """The lowest and highest SSCC from `offset` to the job's end, check digits aside."""
        width = 16 - len(self.sscc_company_prefix)
        head = f"{self.sscc_extension_digit}{self.sscc_company_prefix}"
        first = self.sscc_start_serial + offset
        last = self.sscc_start_serial + self.quantity - 1
        return f"{head}{first:0{width}d}0", f"{head}{last:0{width}d}9"

    def every_code(self) -> Iterator[str]:
        """Every code the plan can make (only for spaces up to ENUMERABLE_SPACE)."""
        chars = CHARACTER_SETS[self.character_set]
        return (self.prefix + "".join(c) for c in itertools.product(chars, repeat=self.length))


def plan_job(
    values: dict[str, Any], gtin: str | None, link_base: str, max_quantity: int
) -> JobPlan:
    """The plan of a job with these field values; PlanError when they do not fit.

    `gtin` is the GTIN-14 of the job's product, when it has one.
    """
    type_ = values.get("type") or "sgtin"
    quantity = int(values.get("quantity") or 0)
    length = int(values.get("length") or 8)
    character_set = values.get("character_set") or "alphanumeric"
    domain = values.get("domain") if isinstance(values.get("domain"), dict) else {}
    assert isinstance(domain, dict)
    base = domain.get("digital_link_base") or link_base
    if not isinstance(base, str) or not base.startswith(("http://", "https://")):
        raise PlanError('"domain.digital_link_base" must be an http(s) URL')
    if quantity > max_quantity:
        raise PlanError(
            f'"quantity" may be at most {max_quantity:,} per job; this installation allows'
            " no more (TRACEPOINT_CODE_JOB_MAX_QUANTITY)"
        )
    if character_set not in CHARACTER_SETS:
        raise PlanError(f'"character_set" must be one of {", ".join(CHARACTER_SETS)}')
    common = JobPlan(type_, "", quantity, length, character_set, base)
    try:
        if type_ == "sgtin":
            return _sgtin(common, values, gtin)
        if type_ == "sscc":
            return _sscc(common, values)
        if type_ == "grai":
            return _grai(common, values, domain)
    except KeyPartsError as exc:
        raise PlanError(str(exc)) from exc
    if length > MAX_SERIAL:
        raise PlanError(f'"length" may be at most {MAX_SERIAL} for {type_} codes')
    return replace(common, scope="short_code")


def _sgtin(common: JobPlan, values: dict[str, Any], gtin: str | None) -> JobPlan:
    if not values.get("product"):
        raise PlanError('An sgtin job needs a "product"')
    if gtin is None:
        raise PlanError(f'Product "{values["product"]}" has no GTIN, which sgtin codes need')
    if common.length > MAX_SERIAL:
        raise PlanError(f'"length" may be at most {MAX_SERIAL}: a GS1 serial has 20 characters')
    return replace(common, scope=f"sgtin:{gtin}", gtin=gtin)


def _sscc(common: JobPlan, values: dict[str, Any]) -> JobPlan:
    prefix = values.get("sscc_company_prefix")
    extension = values.get("sscc_extension_digit")
    if not prefix:
        raise PlanError('An sscc job needs "sscc_company_prefix"')
    if extension is None:
        raise PlanError('An sscc job needs "sscc_extension_digit" (0 to 9)')
    check_sscc_prefix(str(prefix))
    start = int(values.get("sscc_start_serial") or 0)
    capacity = serial_reference_capacity(str(prefix))
    if start + common.quantity > capacity:
        raise PlanError(
            f"Company prefix {prefix} leaves room for serial references 0 to {capacity - 1:,};"
            f" {common.quantity:,} codes from {start:,} do not fit"
        )
    return replace(
        common,
        scope="sscc",
        sscc_extension_digit=int(extension),
        sscc_company_prefix=str(prefix),
        sscc_start_serial=start,
    )


def _grai(common: JobPlan, values: dict[str, Any], domain: dict[str, Any]) -> JobPlan:
    prefix = domain.get("company_prefix") or values.get("sscc_company_prefix")
    asset_type = domain.get("asset_type")
    if not prefix or asset_type is None:
        raise PlanError(
            'A grai job needs "domain": {"company_prefix": …, "asset_type": …} (12 digits together)'
        )
    if common.length > GRAI_MAX_SERIAL:
        raise PlanError(f'"length" may be at most {GRAI_MAX_SERIAL}: a GRAI serial has 16')
    fixed = grai_prefix(str(prefix), str(asset_type))
    return replace(common, scope=f"grai:{fixed}", prefix=fixed)


def product_gtin(product: dict[str, Any] | None) -> str | None:
    """The GTIN-14 of a product's values, None when it has none; PlanError when what it
    holds is not a GTIN."""
    gtin = (product or {}).get("gtin")
    if not gtin:
        return None
    try:
        return normalise_gtin(str(gtin))
    except IdentifierError as exc:
        raise PlanError(str(exc)) from exc
