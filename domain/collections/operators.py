"""The filter operators: which exist, which each field type takes, how string operators match."""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from domain.collections.schema import Field, FieldType


class StringMatch(NamedTuple):
    """How a string operator matches: anchored at the start or end, case, negation."""

    at_start: bool
    at_end: bool
    insensitive: bool
    negated: bool


#: The string operators. Note: Directus 11.9 leaves `_nicontains` out of its type
#: whitelist although its docs list it; it is allowed here.
STRING_MATCHES: Mapping[str, StringMatch] = {
    "_contains": StringMatch(False, False, False, False),
    "_ncontains": StringMatch(False, False, False, True),
    "_icontains": StringMatch(False, False, True, False),
    "_nicontains": StringMatch(False, False, True, True),
    "_starts_with": StringMatch(True, False, False, False),
    "_nstarts_with": StringMatch(True, False, False, True),
    "_istarts_with": StringMatch(True, False, True, False),
    "_nistarts_with": StringMatch(True, False, True, True),
    "_ends_with": StringMatch(False, True, False, False),
    "_nends_with": StringMatch(False, True, False, True),
    "_iends_with": StringMatch(False, True, True, False),
    "_niends_with": StringMatch(False, True, True, True),
}
COMPARISONS: Mapping[str, Callable[[Any, Any], bool]] = {
    "_eq": operator.eq,
    "_neq": operator.ne,
    "_lt": operator.lt,
    "_lte": operator.le,
    "_gt": operator.gt,
    "_gte": operator.ge,
}
# `_null: false` is `_nnull: true` and so on; validated filters only hold the `true` form.
FLAG_OPPOSITES = {"_null": "_nnull", "_nnull": "_null", "_empty": "_nempty", "_nempty": "_empty"}
LIST_OPERATORS = frozenset({"_in", "_nin", "_between", "_nbetween"})
RANGES = frozenset({"_between", "_nbetween"})
VALIDATION_ONLY = frozenset({"_regex", "_submitted"})
FIELD_OPERATORS = frozenset(
    {*STRING_MATCHES, *COMPARISONS, *FLAG_OPPOSITES, *LIST_OPERATORS, *VALIDATION_ONLY}
)

_NULLS = frozenset({"_null", "_nnull"})
HASH_OPERATORS = _NULLS | {"_empty", "_nempty"}
_STRING_OPERATORS = frozenset({*STRING_MATCHES, "_eq", "_neq", "_in", "_nin"}) | HASH_OPERATORS
_ORDERED_OPERATORS = frozenset({*COMPARISONS, *LIST_OPERATORS}) | _NULLS
#: Operators each field type takes (Directus get-filter-operators-for-type).
OPERATORS_BY_TYPE: Mapping[FieldType, frozenset[str]] = {
    FieldType.STRING: _STRING_OPERATORS,
    FieldType.TEXT: _STRING_OPERATORS,
    FieldType.UUID: frozenset({"_eq", "_neq", "_in", "_nin"}) | _NULLS,
    FieldType.INTEGER: _ORDERED_OPERATORS,
    FieldType.FLOAT: _ORDERED_OPERATORS,
    FieldType.DATETIME: _ORDERED_OPERATORS,
    FieldType.DATE: _ORDERED_OPERATORS,
    FieldType.BOOLEAN: frozenset({"_eq", "_neq"}) | _NULLS,
    FieldType.JSON: _NULLS,
    FieldType.HASH: HASH_OPERATORS,
}
#: What a list of strings takes besides null checks: whether it holds an element.
ARRAY_OPERATORS = frozenset({"_contains", "_ncontains"})


def operators_for(field: Field) -> frozenset[str]:
    """The filter operators a field takes."""
    allowed = OPERATORS_BY_TYPE[field.type]
    return allowed | ARRAY_OPERATORS if field.array else allowed
