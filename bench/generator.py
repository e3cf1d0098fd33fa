"""Realistic EPCIS 2.0 events for benchmarks: commissioning, shipping, packing, receiving."""

import random
from datetime import UTC, datetime, timedelta
from typing import Any

CONTEXT = "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"
#: The namespace of the benchmark's own extension fields (`ex:carrier`).
NAMESPACES = {"ex": "https://example.com/bench/"}
CARRIERS = [f"carrier-{n:02d}" for n in range(50)]
COMPANY_PREFIXES = ["4012345", "0614141", "9521234", "5412345"]
BIZ_STEPS = ["commissioning", "shipping", "receiving", "packing", "storing", "inspecting"]
DISPOSITIONS = ["active", "in_transit", "in_progress", "sellable_accessible", "container_closed"]


class EventFactory:
    """Generates events over a time span, with a stable seed so runs compare."""

    def __init__(self, seed: int = 7, start: datetime | None = None, span_days: int = 365) -> None:
        self.random = random.Random(seed)
        self.start = start or datetime(2025, 1, 1, tzinfo=UTC)
        self.span_seconds = span_days * 86_400
        self.serial = 0
        self.locations = [
            f"urn:epc:id:sgln:{cp}.{n:05d}.0" for cp in COMPANY_PREFIXES for n in range(1, 13)
        ]

    def _time(self) -> tuple[str, str]:
        moment = self.start + timedelta(seconds=self.random.uniform(0, self.span_seconds))
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "+00:00"

    def sgtin(self) -> str:
        """A fresh SGTIN URN."""
        self.serial += 1
        cp = self.random.choice(COMPANY_PREFIXES)
        item = f"{self.random.randrange(10_000, 99_999):05d}"
        # Company prefix 7 digits + item reference 6 digits (indicator first) = 13.
        return f"urn:epc:id:sgtin:{cp}.0{item}.{self.serial}"

    def object_event(self) -> dict[str, Any]:
        """An ObjectEvent with one to three EPCs."""
        event_time, offset = self._time()
        location = self.random.choice(self.locations)
        event: dict[str, Any] = {
            "type": "ObjectEvent",
            "eventTime": event_time,
            "eventTimeZoneOffset": offset,
            "epcList": [self.sgtin() for _ in range(self.random.randint(1, 3))],
            "action": self.random.choice(["OBSERVE", "ADD"]),
            "bizStep": self.random.choice(BIZ_STEPS),
            "disposition": self.random.choice(DISPOSITIONS),
            "readPoint": {"id": location},
            "bizLocation": {"id": location},
        }
        roll = self.random.random()
        if event["action"] == "ADD" and roll < 0.4:
            # Lots and their expiry live in ILMD, as CBV master-data attributes.
            event["ilmd"] = {
                "cbvmda:lotNumber": f"LOT-{self.serial // 10}",
                "cbvmda:itemExpirationDate": f"2026-{1 + self.serial % 12:02d}-28",
            }
        if roll > 0.7:
            event["ex:carrier"] = self.random.choice(CARRIERS)
            # Derived from the serial, not drawn, so the other fields stay as in earlier runs.
            event["ex:weight"] = (self.serial * 7919) % 10_000 / 10
        if 0.4 <= roll < 0.5:
            event["sensorElementList"] = [
                {
                    "sensorReport": [
                        {
                            "type": "Temperature",
                            "value": round(self.random.uniform(-5, 30), 1),
                            "uom": "CEL",
                        }
                    ]
                }
            ]
        if self.random.random() < 0.3:
            cp = self.random.choice(COMPANY_PREFIXES)
            event["bizTransactionList"] = [
                {
                    "type": "po",
                    "bizTransaction": f"urn:epcglobal:cbv:bt:{cp}000009:PO-{self.serial}",
                }
            ]
        return event

    def aggregation_event(self) -> dict[str, Any]:
        """An AggregationEvent packing five to ten items onto a pallet."""
        event_time, offset = self._time()
        self.serial += 1
        cp = self.random.choice(COMPANY_PREFIXES)
        return {
            "type": "AggregationEvent",
            "eventTime": event_time,
            "eventTimeZoneOffset": offset,
            "parentID": f"urn:epc:id:sscc:{cp}.{self.serial:010d}",
            "childEPCs": [self.sgtin() for _ in range(self.random.randint(5, 10))],
            "action": "ADD",
            "bizStep": "packing",
            "disposition": "in_progress",
            "readPoint": {"id": self.random.choice(self.locations)},
        }

    def events(self, count: int) -> list[dict[str, Any]]:
        """A mix of four ObjectEvents to one AggregationEvent."""
        return [
            self.aggregation_event() if i % 5 == 4 else self.object_event() for i in range(count)
        ]

    @staticmethod
    def document(events: list[dict[str, Any]]) -> dict[str, Any]:
        """An EPCISDocument around the events."""
        return {
            "@context": [CONTEXT, NAMESPACES],
            "type": "EPCISDocument",
            "schemaVersion": "2.0",
            "creationDate": "2025-01-01T00:00:00.000Z",
            "epcisBody": {"eventList": events},
        }


def capture_documents(batch: int, total: int) -> list[list[dict[str, Any]]]:
    """The capture benchmark's documents (their event lists): the HTTP client and the
    database floors store exactly these, so their rates compare."""
    factory = EventFactory(seed=1000 + batch)
    return [factory.events(batch) for _ in range(total // batch)]
