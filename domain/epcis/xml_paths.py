"""Where in an XML document a place of its JSON-LD twin was: element paths for violations.

Capture checks the JSON-LD form of an XML document; a violation found there names a JSON
location (`epcisBody.eventList.3.quantityList.0.quantity`). The reader keeps, for every
event, the element path it came from and where each of its fields was (1.2 wraps some in
`<extension>`), so the violation can name the element the sender wrote instead
(`EPCISDocument/EPCISBody/EventList/ObjectEvent[4]/extension/quantityList/quantityElement[1]/quantity`).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.epcis.violations import Violation
from domain.epcis.xml_fields import ITEM_ELEMENTS, REPEATED_ELEMENTS

#: Fields of an event part whose value is written as an XML attribute.
_ATTRIBUTE_PARENTS = frozenset({"sensorMetadata", "sensorReport"})
_TYPED_ITEMS = frozenset({"bizTransaction", "source", "destination"})


@dataclass
class EventPlace:
    """Where one event was: its element path, and the path of each field below it."""

    path: str
    fields: dict[str, str] = field(default_factory=dict)


@dataclass
class XmlPlaces:
    """The element paths of an XML document's events and document-level fields."""

    root: str = "EPCISDocument"
    events: list[EventPlace] = field(default_factory=list)

    def element_path(self, location: str) -> str:
        """The element path of a JSON location in the document's JSON-LD twin."""
        parts = location.split(".")
        if parts[:2] == ["epcisBody", "eventList"] and len(parts) > 2 and parts[2].isdigit():
            index = int(parts[2])
            if index < len(self.events):
                return _inside_event(self.events[index], parts[3:])
        if location == "(root)" or not parts:
            return self.root
        if parts[0] == "epcisBody":
            return "/".join([self.root, "EPCISBody", *_steps(parts[1:])])
        if parts[0] == "epcisHeader":
            return "/".join([self.root, "EPCISHeader", *_steps(parts[1:])])
        return "/".join([self.root, *_steps(parts)])

    def relocated(self, violations: Sequence[Violation]) -> list[Violation]:
        """The violations with element paths for locations."""
        return [Violation(self.element_path(v.location), v.reason) for v in violations]


def _inside_event(place: EventPlace, parts: list[str]) -> str:
    if not parts:
        return place.path
    head, rest = parts[0], parts[1:]
    return "/".join([place.path, place.fields.get(head, head), *_steps(rest, head)])


def _steps(parts: list[str], parent: str = "") -> list[str]:
    """Element steps for the JSON path `parts` below a field named `parent`."""
    steps: list[str] = []
    for part in parts:
        if part.isdigit():
            item = ITEM_ELEMENTS.get(parent)
            number = int(part) + 1
            if item is not None:
                steps.append(f"{item}[{number}]")
                parent = item
            elif parent in REPEATED_ELEMENTS and steps:
                steps[-1] = f"{parent}[{number}]"
            else:
                steps.append(f"[{number}]")
            continue
        if parent in _ATTRIBUTE_PARENTS or (parent in _TYPED_ITEMS and part == "type"):
            steps.append("@" + part)
        elif parent in _TYPED_ITEMS and part == parent:
            pass  # the item's text is its value
        else:
            steps.append(part)
        parent = part
    return steps
