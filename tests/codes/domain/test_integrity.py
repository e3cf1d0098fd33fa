"""Integrity rules over scans: unrecognized, unactivated, duplicated and diverted codes."""

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from domain.codes.integrity import (
    DuplicateThresholds,
    Finding,
    PriorScan,
    ScanFacts,
    findings,
    haversine_km,
)

PARIS = (48.8566, 2.3522)
LONDON = (51.5074, -0.1278)
BERLIN = (52.5200, 13.4050)
NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
HOUR = DuplicateThresholds(distance_km=100.0, window_seconds=3600.0)

GOOD = ScanFacts(
    code_known=True,
    status="assigned",
    latitude=PARIS[0],
    longitude=PARIS[1],
    scanned_at=NOW,
    country="FR",
    market="FR",
)


def _prior(place: tuple[float, float], minutes_before: float) -> PriorScan:
    return PriorScan(place[0], place[1], NOW - timedelta(minutes=minutes_before))


def _results(found: list[Finding]) -> list[str]:
    return [finding.result for finding in found]


def test_paris_to_london_is_about_343_km() -> None:
    assert haversine_km(*PARIS, *LONDON) == pytest.approx(343.5, abs=1.0)


def test_distance_is_symmetric() -> None:
    assert haversine_km(*PARIS, *BERLIN) == haversine_km(*BERLIN, *PARIS)


def test_distance_to_the_same_point_is_zero() -> None:
    assert haversine_km(*PARIS, *PARIS) == 0.0


def test_antipodes_are_half_the_circumference_apart() -> None:
    assert haversine_km(0.0, 0.0, 0.0, 180.0) == pytest.approx(math.pi * 6371.0088)


def test_known_active_scan_with_nothing_odd_has_no_findings() -> None:
    assert findings(GOOD, [_prior(PARIS, 5)], HOUR) == []


def test_unknown_code_is_only_unrecognized() -> None:
    facts = replace(GOOD, code_known=False, status=None, country="DE")
    found = findings(facts, [_prior(LONDON, 5)], HOUR)
    assert _results(found) == ["unrecognized"]


@pytest.mark.parametrize("status", ["unassigned", "reserved", None])
def test_code_not_assigned_or_encoded_is_unactivated(status: str | None) -> None:
    found = findings(replace(GOOD, status=status), [], HOUR)
    assert _results(found) == ["unactivated"]


def test_unactivated_reason_names_the_status() -> None:
    (finding,) = findings(replace(GOOD, status="reserved"), [], HOUR)
    assert "'reserved'" in finding.reason


@pytest.mark.parametrize("status", ["assigned", "encoded"])
def test_assigned_and_encoded_codes_are_active(status: str) -> None:
    assert findings(replace(GOOD, status=status), [], HOUR) == []


def test_far_scan_within_the_window_is_duplicated() -> None:
    found = findings(GOOD, [_prior(LONDON, 20)], HOUR)
    assert _results(found) == ["duplicated"]


def test_duplicated_reason_gives_distance_and_time() -> None:
    (finding,) = findings(GOOD, [_prior(LONDON, 20)], HOUR)
    assert finding.reason.startswith("Scanned 344 km from a scan 20 minutes earlier;")
    assert "100 km" in finding.reason


def test_duplicated_reports_the_farthest_prior_scan() -> None:
    found = findings(GOOD, [_prior(LONDON, 10), _prior(BERLIN, 30), _prior(PARIS, 1)], HOUR)
    berlin = haversine_km(*PARIS, *BERLIN)
    assert found[0].reason.startswith(f"Scanned {berlin:.0f} km from a scan 30 minutes earlier")


def test_prior_scan_after_this_one_counts_too() -> None:
    (finding,) = findings(GOOD, [_prior(LONDON, -15)], HOUR)
    assert finding.reason.startswith("Scanned 344 km from a scan 15 minutes later;")


def test_exactly_at_the_distance_is_not_duplicated() -> None:
    at = DuplicateThresholds(haversine_km(*PARIS, *LONDON), 3600.0)
    assert findings(GOOD, [_prior(LONDON, 20)], at) == []


def test_just_beyond_the_distance_is_duplicated() -> None:
    beyond = DuplicateThresholds(haversine_km(*PARIS, *LONDON) - 0.001, 3600.0)
    assert _results(findings(GOOD, [_prior(LONDON, 20)], beyond)) == ["duplicated"]


def test_exactly_at_the_window_edge_is_still_within_it() -> None:
    assert _results(findings(GOOD, [_prior(LONDON, 60)], HOUR)) == ["duplicated"]


def test_outside_the_window_is_not_duplicated() -> None:
    prior = PriorScan(*LONDON, NOW - timedelta(seconds=3601))
    assert findings(GOOD, [prior], HOUR) == []


def test_near_scan_within_the_window_is_not_duplicated() -> None:
    assert findings(GOOD, [PriorScan(48.86, 2.35, NOW - timedelta(minutes=1))], HOUR) == []


@pytest.mark.parametrize(("latitude", "longitude"), [(None, None), (None, 2.35), (48.85, None)])
def test_scan_without_coordinates_is_never_duplicated(
    latitude: float | None, longitude: float | None
) -> None:
    facts = replace(GOOD, latitude=latitude, longitude=longitude)
    assert findings(facts, [_prior(LONDON, 1)], HOUR) == []


def test_scan_in_another_country_than_the_market_is_diverted() -> None:
    found = findings(replace(GOOD, country="DE"), [], HOUR)
    assert found == [
        Finding("diverted", "Scanned in DE, but the code was reserved for the FR market.")
    ]


def test_countries_compare_case_insensitively() -> None:
    assert findings(replace(GOOD, country="fr", market="Fr"), [], HOUR) == []


@pytest.mark.parametrize(("country", "market"), [(None, "FR"), ("DE", None), ("", "FR")])
def test_unknown_country_or_market_is_not_diverted(country: str | None, market: str | None) -> None:
    assert findings(replace(GOOD, country=country, market=market), [], HOUR) == []


def test_several_findings_come_together_in_order() -> None:
    facts = replace(GOOD, status="reserved", country="DE")
    found = findings(facts, [_prior(LONDON, 20)], HOUR)
    assert _results(found) == ["unactivated", "duplicated", "diverted"]
