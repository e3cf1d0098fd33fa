"""The extension-field query families: `<OP>_<SCOPE>_<fieldname>` (EPCIS 2.0 §8.2.7.1).

OP is EQ, GT, GE, LT, LE or EXISTS; SCOPE is empty (fields of the event itself), INNER_,
ILMD_, ERROR_DECLARATION_, SENSORELEMENT_, SENSORMETADATA_, SENSORREPORT_, readPoint_ or
bizLocation_, each also as INNER_…; the field is named by its IRI (a CURIE is expanded
before parsing) or in the XML-era form `namespace#localName`.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from domain.epcis.field_terms import SCOPES, typed_value

Operator = Literal["EQ", ">", ">=", "<", "<=", "EXISTS"]
_OPERATORS: dict[str, Operator] = {
    "EQ": "EQ",
    "GT": ">",
    "GE": ">=",
    "LT": "<",
    "LE": "<=",
    "EXISTS": "EXISTS",
}


#: A field is named by an IRI or a CURIE: a scheme or prefix, then a colon. An underscore
#: cannot be part of either, which keeps `EQ_source_<type>` and its kin apart.
_NAMED = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


class FieldParameterError(ValueError):
    """A field parameter with a value of the wrong shape."""


@dataclass(frozen=True)
class FieldMatch:
    """Events with a field of one of `names` in `scope` whose value satisfies `operator`:
    equal to one of the texts, numbers or instants (EQ), compared with the one number or
    instant given (GT…LE), or present at all (EXISTS)."""

    scope: str
    names: tuple[str, ...]
    operator: Operator
    texts: tuple[str, ...] = ()
    numbers: tuple[float, ...] = ()
    instants: tuple[int, ...] = ()


def field_parameter(name: str) -> tuple[str, str, str] | None:
    """(OP, SCOPE, fieldname) when `name` is a field parameter, else None."""
    op, sep, rest = name.partition("_")
    if not sep or op not in _OPERATORS:
        return None
    for scope in SCOPES:
        field = rest[len(scope) :]
        if rest.startswith(scope) and _NAMED.match(field):
            return op, scope, field
    return None


def field_names(field: str) -> tuple[str, ...]:
    """The IRIs a written field name may stand for: itself, and for `namespace#local` (the
    XML-era form, whose `#` only separates) the namespace followed by the local name."""
    namespace, sep, local = field.rpartition("#")
    if sep and namespace and local:
        return (field, namespace + local)
    return (field,)


def parse_field_match(name: str, values: Sequence[str]) -> FieldMatch:
    """The match a field parameter states; raises FieldParameterError for a bad value."""
    parsed = field_parameter(name)
    if parsed is None:
        raise FieldParameterError(f"{name} is not a field parameter")
    op, scope, field = parsed
    operator = _OPERATORS[op]
    names = field_names(field)
    if operator == "EXISTS":
        return FieldMatch(scope, names, operator)
    typed = [typed_value(value) for value in values]
    if operator == "EQ":
        return FieldMatch(
            scope,
            names,
            operator,
            texts=tuple(values),
            numbers=tuple(t[1] for t in typed if t is not None and t[1] is not None),
            instants=tuple(t[2] for t in typed if t is not None and t[2] is not None),
        )
    if len(values) != 1:
        raise FieldParameterError(f"{name} takes exactly one value, got {len(values)}")
    [value] = typed
    if value is not None and value[2] is not None:
        return FieldMatch(scope, names, operator, instants=(value[2],))
    if value is not None and value[1] is not None and math.isfinite(value[1]):
        return FieldMatch(scope, names, operator, numbers=(value[1],))
    raise FieldParameterError(f"{name} compares numbers and date-times; {values[0]!r} is neither")
