"""HASATTR_<field> and EQ_ATTR_<field>_<attribute>: events whose place has, in captured
master data, an attribute (of a value). The places are `readPoint` and `bizLocation`."""

from collections.abc import Sequence
from dataclasses import dataclass

from domain.epcis.master_data import BUSINESS_LOCATION, READ_POINT, attribute_name

#: The event fields these parameters follow, with the vocabulary that describes them.
FIELDS = {"readPoint": READ_POINT, "bizLocation": BUSINESS_LOCATION}


class AttributeParameterError(ValueError):
    """An attribute parameter on a field it cannot follow."""


@dataclass(frozen=True)
class AttributeMatch:
    """Events whose `field` names an element of `vocabulary` with one of `attributes`,
    holding one of `values` (any value when there are none)."""

    field: str
    vocabulary: str
    attributes: tuple[str, ...]
    values: tuple[str, ...] = ()


def is_attribute_parameter(name: str) -> bool:
    """Whether `name` is HASATTR_… or EQ_ATTR_…."""
    return name.startswith(("HASATTR_", "EQ_ATTR_"))


def parse_attribute_match(name: str, values: Sequence[str]) -> AttributeMatch:
    """The match HASATTR_<field> (values: attribute names) or EQ_ATTR_<field>_<attribute>
    (values: attribute values) states."""
    if name.startswith("HASATTR_"):
        field = name[len("HASATTR_") :]
        return AttributeMatch(
            field, _vocabulary(name, field), tuple(attribute_name(v, {}) for v in values)
        )
    field, sep, attribute = name[len("EQ_ATTR_") :].partition("_")
    if not sep or not attribute:
        raise AttributeParameterError(f"{name} names no attribute after the field")
    return AttributeMatch(
        field, _vocabulary(name, field), (attribute_name(attribute, {}),), tuple(values)
    )


def _vocabulary(name: str, field: str) -> str:
    vocabulary = FIELDS.get(field)
    if vocabulary is None:
        raise AttributeParameterError(
            f"{name}: master-data attributes are followed from readPoint and bizLocation"
        )
    return vocabulary
