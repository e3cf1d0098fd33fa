"""event_hash's direct path for the usual fields: equal to its general tree and to the reference."""

import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from domain.epcis import event_hash as event_hash_module
from domain.epcis.event_hash import document_context, event_hash, prehash
from tests.epcis.domain.test_event_hash import EXAMPLE, EventFactory, _events, _reference

COMPANY_PREFIXES = ("4012345", "0614141", "952123", "401234567890")


class CaptureEvents:
    """Seeded events shaped as capture mostly sees them (as `bench/generator.py` makes them)."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def digits(self, count: int) -> str:
        return "".join(self.rnd.choice("0123456789") for _ in range(count))

    def serial(self) -> str:
        number = self.digits(self.rnd.randint(1, 12))
        return self.rnd.choice((number, number, number, "A" + number, number + "%2F1"))

    def sgtin(self) -> str:
        cp = self.rnd.choice(COMPANY_PREFIXES)
        return f"urn:epc:id:sgtin:{cp}.{self.digits(13 - len(cp))}.{self.serial()}"

    def sgln(self) -> str:
        cp = self.rnd.choice(COMPANY_PREFIXES)
        return f"urn:epc:id:sgln:{cp}.{self.digits(12 - len(cp))}.{self.rnd.choice(('0', '7'))}"

    def time(self) -> str:
        day = f"20{self.digits(2)}-{self.rnd.randint(1, 12):02d}-{self.rnd.randint(1, 28):02d}"
        clock = ":".join(f"{self.rnd.randint(0, top):02d}" for top in (23, 59, 59))
        fraction = self.rnd.choice((".123", ".000", ".999", "", ".1415"))
        return day + "T" + clock + fraction + self.rnd.choice(("Z", "Z", "Z", "+02:00", "-05:00"))

    def object_event(self) -> dict[str, Any]:
        location = self.sgln()
        event: dict[str, Any] = {
            "type": "ObjectEvent",
            "eventTime": self.time(),
            "eventTimeZoneOffset": self.rnd.choice(("+00:00", "+02:00")),
            "epcList": [self.sgtin() for _ in range(self.rnd.randint(1, 3))],
            "action": self.rnd.choice(("OBSERVE", "ADD", "DELETE")),
            "bizStep": self.rnd.choice(
                ("shipping", "receiving", "urn:epcglobal:cbv:bizstep:packing")
            ),
            "disposition": self.rnd.choice(("in_transit", "active", "container_closed")),
            "readPoint": {"id": location},
            "bizLocation": {"id": self.rnd.choice((location, self.sgln()))},
        }
        if self.rnd.random() < 0.4:
            event["bizTransactionList"] = [
                {"type": self.rnd.choice(("po", "desadv")), "bizTransaction": self.transaction()}
                for _ in range(self.rnd.randint(1, 2))
            ]
        if self.rnd.random() < 0.2:
            owner = f"urn:epc:id:pgln:4012345.{self.digits(5)}"
            event["sourceList"] = [{"type": "owning_party", "source": owner}]
            # Type first: the reference hashes the pair in JSON order, we always type first.
            event["destinationList"] = [{"type": "location", "destination": self.sgln()}]
        return event

    def transaction(self) -> str:
        return f"urn:epcglobal:cbv:bt:4012345000009:PO-{self.digits(4)}"

    def aggregation_event(self) -> dict[str, Any]:
        cp = self.rnd.choice(COMPANY_PREFIXES)
        return {
            "type": "AggregationEvent",
            "eventTime": self.time(),
            "eventTimeZoneOffset": "+00:00",
            "parentID": f"urn:epc:id:sscc:{cp}.{self.digits(17 - len(cp))}",
            "childEPCs": [self.sgtin() for _ in range(self.rnd.randint(5, 10))],
            "action": "ADD",
            "bizStep": "packing",
            "disposition": "in_progress",
            "readPoint": {"id": self.sgln()},
        }

    def document(self, count: int) -> dict[str, Any]:
        events = [
            self.aggregation_event() if self.rnd.random() < 0.25 else self.object_event()
            for _ in range(count)
        ]
        return {
            "@context": ["https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"],
            "type": "EPCISDocument",
            "schemaVersion": "2.0",
            "creationDate": "2024-01-01T00:00:00Z",
            "epcisBody": {"eventList": events},
        }


@pytest.mark.parametrize("seed", range(8))
def test_capture_shaped_events_hash_as_in_the_reference_implementation(seed: int) -> None:
    document = CaptureEvents(seed).document(25)
    reference_prehashes, reference_hashes = _reference(document)
    context = document_context(document)
    events = _events(document)
    assert [prehash(event, context) for event in events] == reference_prehashes
    assert [event_hash(event, context) for event in events] == reference_hashes


# Values of unusual shape for the fields the direct path knows, and what surrounds them.
ODD_FIELDS: list[dict[str, Any]] = [
    {"epcList": [None, 7, "", " urn:epc:id:sgtin:4012345.011111.1 "]},
    {"epcList": "urn:epc:id:sgtin:4012345.011111.1"},
    {"epcList": []},
    {"epcList": ["", "  "]},
    {"childEPCs": [{"epc": "urn:epc:id:sgtin:4012345.011111.1"}]},
    {"inputEPCList": ["example:thing", "urn:epc:id:sgtin:4012345.011111.2"]},
    {"readPoint": {"id": "urn:epc:id:sgln:4012345.00005.0", "example:room": "r1"}},
    {"readPoint": {"id": ""}},
    {"readPoint": {}},
    {"readPoint": {"id": 5}},
    {"readPoint": [{"id": "urn:x:a"}, {"id": "urn:x:b"}]},
    {"readPoint": "urn:epc:id:sgln:4012345.00005.0"},
    {"bizLocation": {"#text": "t", "id": "urn:x:a"}},
    {"bizLocation": {"comment": "c"}},
    {"bizTransactionList": [{"type": None, "bizTransaction": "urn:x:1"}]},
    {"bizTransactionList": [{"type": "po", "bizTransaction": None}]},
    {
        "bizTransactionList": [
            {"bizTransaction": "urn:x:1", "type": "po"},
            {"type": "", "bizTransaction": " "},
            {},
            {"type": "urn:epcglobal:cbv:btt:inv"},
        ]
    },
    {"bizTransactionList": {"type": "po", "bizTransaction": "urn:x:1"}},
    {"bizTransactionList": []},
    {"bizTransactionList": [{}]},
    {"bizTransactionList": ["urn:x:1"]},
    {"bizTransactionList": [{"type": "po", "bizTransaction": "urn:x:1", "example:x": "y"}]},
    {"bizTransactionList": [{"type": ["po"], "bizTransaction": "urn:x:1"}]},
    {
        "sourceList": [{"type": "owning_party", "source": "urn:epc:id:pgln:4012345.00000"}],
        "destinationList": [{"destination": "https://id.gs1.org/417/4012345000009"}],
    },
    {"bizStep": ["shipping", "receiving"]},
    {"bizStep": None},
    {"bizStep": " shipping "},
    {"bizStep": "example:step"},
    {"disposition": "urn:epcglobal:cbv:disp:active"},
    {"disposition": ""},
    {"action": 5},
    {"action": ["ADD", "OBSERVE"]},
    {"eventTime": ["2020-01-01T00:00:00Z", "2019-01-01T00:00:00Z"]},
    {"eventTime": None},
    {"eventTime": " 2020-01-01T00:00:00.000Z "},
    {"eventTime": "2020-02-30T00:00:00.000Z"},
    {"eventTimeZoneOffset": " +01:00 "},
    {"parentID": ["urn:x:a", "urn:x:b"]},
    {"parentID": {"id": "urn:x:a"}},
    {"parentID": "20.50"},
    {"certificationInfo": "https://cert.example.org/1", "transformationID": "urn:x:t"},
    {"example:epcList": ["urn:epc:id:sgtin:4012345.011111.1"]},
    {"quantityList": [{"epcClass": "urn:epc:class:lgtin:4012345.011111.L1", "quantity": 5}]},
    {"@context": [{"mine": "https://mine.example/"}], "mine:f": "x1", "comment": "c"},
    {"#text": "text", "rdfs:comment": "c"},
    {"ilmd": {"example:lot": "L1"}, "example:note": "n1", "ext2:flag": "f"},
    {"errorDeclaration": {"reason": "incorrect_data"}, "recordTime": "2024-01-01T00:00:00Z"},
]
# Events the tree treats as a whole: the direct path must leave them to it.
WHOLE_EVENT_FIELDS: list[dict[str, Any]] = [
    {"source": "urn:x:s"},
    {"bizTransaction": "urn:x:t"},
    {"eventTime": 5, "action": None},
    {"eventTime": None, "action": 7},
]
NAMESPACES: list[dict[str, str]] = [
    {},
    {"example": EXAMPLE, "ext2": "http://ns.ext2.example.org/v1/"},
    # Prefixes that capture documents would not declare, but that values could match.
    {"urn": "https://urn.example/", "2020-01-01T00": "https://t.example/", "PO": "urn:po:"},
]
IGNORED: list[tuple[str, ...]] = [
    (),
    ("bizStep",),
    ("eventTime",),
    ("eventTime", "action"),
    ("readPoint", "example:note"),
]


def _tree_only(monkeypatch: pytest.MonkeyPatch) -> Callable[..., str]:
    """prehash as it was before the direct path: through the tree for every event."""

    def tree_prehash(event: Mapping[str, Any], context: Any, ignore: tuple[str, ...]) -> str:
        with monkeypatch.context() as patch:
            patch.setattr(event_hash_module, "_direct_prehash", lambda *_: None)
            return prehash(event, context, ignore_fields=ignore)

    return tree_prehash


def _mutated(event: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    mutated = dict(event)
    for fields in rnd.sample(ODD_FIELDS, rnd.randint(0, 3)):
        mutated.update(fields)
    if rnd.random() < 0.1:
        mutated.update(rnd.choice(WHOLE_EVENT_FIELDS))
    return mutated


@pytest.mark.parametrize("seed", range(6))
def test_direct_path_equals_the_tree_on_odd_shapes(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree_prehash = _tree_only(monkeypatch)
    rnd = random.Random(seed)
    events = _events(EventFactory(seed).document(20)) + _events(CaptureEvents(seed).document(20))
    answered = 0
    direct = event_hash_module._direct_prehash
    for event in events:
        for _ in range(3):
            mutated = _mutated(event, rnd)
            namespaces = rnd.choice(NAMESPACES)
            ignore = rnd.choice(IGNORED)
            assert prehash(mutated, namespaces, ignore_fields=ignore) == tree_prehash(
                mutated, namespaces, ignore
            ), (mutated, namespaces, ignore)
            answered += direct(mutated, namespaces, frozenset(ignore)) is not None
    # The comparison means something only if the direct path did most of the work.
    assert answered > len(events) * 3 * 0.6


@pytest.mark.parametrize("fields", ODD_FIELDS + WHOLE_EVENT_FIELDS)
def test_each_odd_shape_hashes_as_through_the_tree(
    fields: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree_prehash = _tree_only(monkeypatch)
    event = {
        "type": "ObjectEvent",
        "eventTime": "2020-04-01T15:00:00.000+01:00",
        "eventTimeZoneOffset": "+01:00",
        "epcList": ["urn:epc:id:sgtin:4012345.011111.9876"],
        "action": "OBSERVE",
        "bizStep": "shipping",
        "readPoint": {"id": "urn:epc:id:sgln:4012345.00005.0"},
        **fields,
    }
    for namespaces in NAMESPACES:
        for ignore in IGNORED:
            expected = tree_prehash(event, namespaces, ignore)
            assert prehash(event, namespaces, ignore_fields=ignore) == expected


@pytest.mark.parametrize(
    "fields",
    [
        {"bizStep": "shipping", "readPoint": {"id": "urn:x:r"}, "example:note": "n1"},
        {"bizStep": "shipping", "example:note": "n1", "ilmd": {"example:lot": "L1"}},
        {"sourceList": [{"source": "urn:x:s"}], "example:note": "n1", "other:x": "o1"},
        {"disposition": "active", "example:note": "n1", "example:more": {"example:x": "y"}},
        {"epcList": ["urn:x:1"], "bizLocation": {"id": "urn:x:b"}, "example:z": "z1"},
        {"eventTime": "2020-01-01T00:00:00Z", "example:note": "n1"},
    ],
)
def test_events_without_an_anchor_hash_as_through_the_tree(
    fields: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    tree_prehash = _tree_only(monkeypatch)
    event = {"type": "ObjectEvent", **fields}
    for namespaces in NAMESPACES:
        for ignore in IGNORED:
            expected = tree_prehash(event, namespaces, ignore)
            assert prehash(event, namespaces, ignore_fields=ignore) == expected


def test_events_without_eventtime_or_action_take_the_tree() -> None:
    event = {"type": "ObjectEvent", "epcList": ["urn:x:1"], "example:note": "n1"}
    assert event_hash_module._direct_prehash(event, {}, frozenset()) is None
    # Without an anchor the tree puts namespaced extensions right after the standard fields.
    assert prehash(event, {"example": EXAMPLE}) == (
        "eventType=ObjectEventepcListepc=urn:x:1{https://ns.example.com/epcis/}note=n1"
    )


@pytest.mark.parametrize(
    ("event_time", "hashed"),
    [
        ("2023-02-02T11:04:03.123Z", "2023-02-02T11:04:03.123Z"),
        ("2023-02-02T11:04:03Z", "2023-02-02T11:04:03.000Z"),
        ("2023-02-02T11:04:03", "2023-02-02T11:04:03.000Z"),
        ("2023-02-02", "2023-02-02T00:00:00.000Z"),
        ("2023-02-02T11:04:03.000+01:00:30.5", "2023-02-02T10:03:32.500Z"),
        ("2023-02-02T11:04:03.9996+01:00:30.5", "2023-02-02T10:03:33.500Z"),
        ("2023-02-30T00:00:00.000Z", "2023-02-30T00:00:00.000Z"),
        ("0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00+01:00"),
    ],
)
def test_timestamps_in_and_out_of_the_canonical_form(event_time: str, hashed: str) -> None:
    event = {"type": "ObjectEvent", "eventTime": event_time, "action": "OBSERVE"}
    assert prehash(event) == f"eventType=ObjectEventeventTime={hashed}action=OBSERVE"
