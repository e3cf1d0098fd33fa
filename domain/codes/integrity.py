"""Integrity rules over a scan of a code: unknown, not yet activated, duplicated or diverted."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

# The mean earth radius (IUGG), in km.
EARTH_RADIUS_KM = 6371.0088
ACTIVE_STATUSES = ("assigned", "encoded")


@dataclass(frozen=True)
class ScanFacts:
    """What is known of one scan and of the code it read.

    `country` is where the scan happened and `market` what the code was reserved for
    (ISO 3166 alpha-2); `scanned_at` compares with prior scans, so give both the same tz.
    """

    code_known: bool
    status: str | None
    latitude: float | None
    longitude: float | None
    scanned_at: datetime
    country: str | None
    market: str | None


@dataclass(frozen=True)
class PriorScan:
    """An earlier (or concurrent) scan of the same code, where and when it happened."""

    latitude: float
    longitude: float
    scanned_at: datetime


@dataclass(frozen=True)
class DuplicateThresholds:
    """Two scans farther apart than `distance_km` within `window_seconds` mean a duplicate."""

    distance_km: float
    window_seconds: float


@dataclass(frozen=True)
class Finding:
    """One broken rule: `result` is unrecognized, unactivated, duplicated or diverted."""

    result: str
    reason: str


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """The great-circle distance in km between two points given in decimal degrees."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    half_dphi = math.radians(lat2 - lat1) / 2
    half_dlambda = math.radians(lon2 - lon1) / 2
    a = math.sin(half_dphi) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(half_dlambda) ** 2
    # Rounding can push `a` past 1 for antipodal points, outside asin's domain.
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(min(1.0, a)))


def _number(value: float) -> str:
    # "500", "0.25", "1500000": never an exponent, never a trailing ".0".
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _count(value: float, unit: str) -> str:
    return f"{_number(value)} {unit}" if value == 1 else f"{_number(value)} {unit}s"


def _duration(seconds: float) -> str:
    # Whole units read better in a reviewer's queue than raw seconds.
    if seconds < 120:
        return _count(round(seconds), "second")
    if seconds < 2 * 3600:
        return _count(round(seconds / 60), "minute")
    return _count(round(seconds / 3600, 1), "hour")


def _known(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    return value.strip().upper()


def _duplicated(
    facts: ScanFacts, prior: Sequence[PriorScan], thresholds: DuplicateThresholds
) -> Finding | None:
    if facts.latitude is None or facts.longitude is None:
        return None
    farthest: tuple[float, PriorScan] | None = None
    for scan in prior:
        apart = abs((facts.scanned_at - scan.scanned_at).total_seconds())
        if apart > thresholds.window_seconds:
            continue
        distance = haversine_km(facts.latitude, facts.longitude, scan.latitude, scan.longitude)
        # Exactly at the threshold is still one plausible journey, not a copy.
        if distance > thresholds.distance_km and (farthest is None or distance > farthest[0]):
            farthest = (distance, scan)
    if farthest is None:
        return None
    distance, scan = farthest
    offset = (facts.scanned_at - scan.scanned_at).total_seconds()
    when = "earlier" if offset >= 0 else "later"
    return Finding(
        "duplicated",
        f"Scanned {distance:.0f} km from a scan {_duration(abs(offset))} {when}; "
        f"scans more than {_number(thresholds.distance_km)} km apart within "
        f"{_duration(thresholds.window_seconds)} suggest a copied code.",
    )


def findings(
    facts: ScanFacts, prior: Sequence[PriorScan], thresholds: DuplicateThresholds
) -> list[Finding]:
    """The rules a scan breaks, in the order unactivated, duplicated, diverted; empty if none.

    An unknown code is only "unrecognized": nothing else can be said of it.
    """
    if not facts.code_known:
        return [Finding("unrecognized", "The scanned code is not one of ours.")]
    found: list[Finding] = []
    if facts.status not in ACTIVE_STATUSES:
        status = "no status" if facts.status is None else f"status {facts.status!r}"
        found.append(
            Finding(
                "unactivated",
                f"The code has {status}; only assigned or encoded codes should be in circulation.",
            )
        )
    duplicated = _duplicated(facts, prior, thresholds)
    if duplicated is not None:
        found.append(duplicated)
    country, market = _known(facts.country), _known(facts.market)
    if country is not None and market is not None and country != market:
        found.append(
            Finding(
                "diverted",
                f"Scanned in {country}, but the code was reserved for the {market} market.",
            )
        )
    return found
