"""Document validation speed: a 10,000-event capture document, valid and invalid.

    python -m bench.validation [--events 10000] [--runs 5] [--limit 0.5]

Validates, as capture does (`DocumentValidator.validate_capture`), the document of
tests/epcis/test_schema.py's ten-thousand-event tests: once valid, and
once without its `@context` and with a wrong action in its last event, which makes the
validator explain each violation. Each case is validated once to warm up, then `--runs`
times; the best run is the one least disturbed by whatever else the machine is doing.
The target is the best run under `--limit` seconds (0.5 s at 10,000 events); the script
exits with status 1 when a case misses it or finds other violations than expected.
"""

import argparse
import copy
import time
from typing import Any

from infrastructure.epcis_schema import DocumentValidator

CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"
SGLN = "urn:epc:id:sgln:4012345.00001.0"


def valid_document(events: int) -> dict[str, Any]:
    """A capture document of `events` typical ObjectEvents."""
    event_list = [
        {
            "type": "ObjectEvent",
            "eventTime": "2024-03-01T10:00:00.000+01:00",
            "eventTimeZoneOffset": "+01:00",
            "epcList": [f"urn:epc:id:sgtin:4012345.011111.{serial}"],
            "action": "OBSERVE",
            "bizStep": "shipping",
            "disposition": "in_transit",
            "readPoint": {"id": SGLN},
            "bizTransactionList": [{"type": "po", "bizTransaction": "urn:epcglobal:cbv:bt:1:2"}],
        }
        for serial in range(events)
    ]
    return {
        "@context": [CONTEXT, {"example": "https://ns.example.com/epcis/"}],
        "type": "EPCISDocument",
        "schemaVersion": "2.0",
        "creationDate": "2024-03-01T10:00:00.000Z",
        "epcisBody": {"eventList": event_list},
    }


def invalid_document(events: int) -> tuple[dict[str, Any], list[str]]:
    """The valid document without `@context` and with its last action wrong, and the
    locations of the violations the validator must report."""
    doc = copy.deepcopy(valid_document(events))
    del doc["@context"]
    doc["epcisBody"]["eventList"][-1]["action"] = "SHIPPING"
    return doc, ["(root)", f"epcisBody.eventList.{events - 1}.action"]


def timed_runs(
    validator: DocumentValidator, doc: dict[str, Any], expected: list[str], runs: int
) -> list[float]:
    """Seconds of each of `runs` validations, after a warm-up; SystemExit when the
    violations found are not the expected ones."""
    found = [v.location for v in validator.validate_capture(doc)]
    if found != expected:
        raise SystemExit(f"expected violations at {expected}, found {found}")
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        validator.validate_capture(doc)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    """Time both cases and print the runs, the best and whether it meets the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit", type=float, default=0.5, help="target seconds, best run")
    args = parser.parse_args()
    validator = DocumentValidator()
    invalid, locations = invalid_document(args.events)
    cases = {
        "valid": (valid_document(args.events), []),
        "explained": (invalid, locations),
    }
    missed = []
    print(f"validate_capture of a {args.events:,}-event document, {args.runs} runs:")
    for name, (doc, expected) in cases.items():
        runs = timed_runs(validator, doc, expected, args.runs)
        best = min(runs)
        verdict = "ok" if best < args.limit else f"MISSED the {args.limit} s target"
        print(
            f"  {name:<10} best {best * 1000:7.1f} ms  "
            f"(runs: {', '.join(f'{r * 1000:.0f}' for r in runs)} ms)  {verdict}"
        )
        if best >= args.limit:
            missed.append(name)
    if missed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
