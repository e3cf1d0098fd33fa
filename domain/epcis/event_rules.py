"""Item rules on `epcis_event`: which events a permission lets a caller see.

A rule is a Directus filter over the fields of an event; it is answered by the EPCIS
event queries the repository already evaluates, so a partner's rule applies with the
same EPC, CBV and time semantics as their own queries, on every page. A rule becomes a
disjunction of queries: the events it allows are those that match any of them.

A rule has no `@context`: its CURIEs (in values and in extension field names) are read
by bindings the caller's captured documents made, exactly as a query's are.
"""

import dataclasses
from collections.abc import Sequence
from itertools import product
from typing import Any

from domain.collections.filters import And, Condition, Filter, Or, Related
from domain.epcis.curies import STANDARD_PREFIXES, curie_prefix
from domain.epcis.event_query import EventQuery, QueryParameterError, parse_event_query
from domain.epcis.query_curies import PrefixBindings, expand_query, named_iris, query_prefixes

#: Event fields a rule may test with `_eq` / `_in`, and the query parameter of each.
#: EPC fields take exact EPCs and patterns (`urn:epc:idpat:sgtin:4012345.*.*`, or a URI
#: ending in `*`), as the MATCH_ parameters do.
MATCHED_FIELDS = {
    "type": "eventType",
    "eventType": "eventType",
    "action": "EQ_action",
    "bizStep": "EQ_bizStep",
    "disposition": "EQ_disposition",
    "readPoint": "EQ_readPoint",
    "bizLocation": "EQ_bizLocation",
    "eventID": "EQ_eventID",
    "transformationID": "EQ_transformationID",
    "epc": "MATCH_anyEPC",
    "epcList": "MATCH_epc",
    "parentID": "MATCH_parentID",
    "inputEPCList": "MATCH_inputEPC",
    "outputEPCList": "MATCH_outputEPC",
    "epcClass": "MATCH_anyEPCClass",
}
#: Members of an event's structures a rule may test with `_eq` / `_in`, and the parameter.
MATCHED_MEMBERS: dict[tuple[str, ...], str] = {
    ("errorDeclaration", "reason"): "EQ_errorReason",
    ("errorDeclaration", "correctiveEventIDs"): "EQ_correctiveEventID",
    ("persistentDisposition", "set"): "EQ_persistentDisposition_set",
    ("persistentDisposition", "unset"): "EQ_persistentDisposition_unset",
    ("sensorReport", "type"): "EQ_type",
    ("sensorReport", "deviceID"): "EQ_deviceID",
    ("sensorMetadata", "deviceID"): "EQ_deviceID",
    ("sensorReport", "dataProcessingMethod"): "EQ_dataProcessingMethod",
    ("sensorMetadata", "dataProcessingMethod"): "EQ_dataProcessingMethod",
    ("sensorReport", "microorganism"): "EQ_microorganism",
    ("sensorReport", "chemicalSubstance"): "EQ_chemicalSubstance",
}
#: Time fields a rule may bound with `_gte` / `_lt`.
TIME_FIELDS = {"eventTime": "eventTime", "recordTime": "recordTime"}

Parameters = dict[str, list[str]]


class EventRuleError(ValueError):
    """A rule that cannot be turned into event queries; the message says why."""


def allowed_queries(rule: Filter, bindings: PrefixBindings | None = None) -> tuple[EventQuery, ...]:
    """The event queries whose union is what `rule` allows (variables already resolved),
    its CURIEs read by `bindings`; EventRuleError for one whose prefix is ambiguous."""
    bindings = bindings or PrefixBindings()
    queries = []
    for parameters in _alternatives(rule):
        for _, text in named_iris(parameters):
            prefix = curie_prefix(text)
            if prefix in bindings.ambiguous:
                raise EventRuleError(
                    f"{text}: the prefix {prefix!r} is bound to more than one namespace by"
                    " the captured documents; write the full IRI"
                )
        try:
            if bindings.namespaces:
                parameters = expand_query(parameters, bindings.namespaces)
            queries.append(parse_event_query(parameters))
        except QueryParameterError as exc:
            raise EventRuleError(str(exc)) from exc
    return tuple(queries)


def rule_prefixes(rule: Filter) -> set[str]:
    """The prefixes of the CURIEs `rule` names, as values or as extension fields."""
    return {prefix for parameters in _alternatives(rule) for prefix in query_prefixes(parameters)}


def unbound_curies(rule: Filter, bindings: PrefixBindings) -> list[str]:
    """The CURIEs of `rule` whose prefix `bindings` leave unbound (the EPCIS context's
    own prefixes are bound everywhere)."""
    known = bindings.namespaces.keys() | bindings.ambiguous | STANDARD_PREFIXES
    return sorted(
        {
            text
            for parameters in _alternatives(rule)
            for _, text in named_iris(parameters)
            if (prefix := curie_prefix(text)) is not None and prefix not in known
        }
    )


def _alternatives(node: Filter) -> list[Parameters]:
    if isinstance(node, Or):
        return [alternative for item in node.items for alternative in _alternatives(item)]
    if isinstance(node, And):
        combined: list[Parameters] = []
        for parts in product(*(_alternatives(item) for item in node.items)):
            combined.append(_both(parts))
        return combined
    if isinstance(node, Condition):
        return [_parameters(node)]
    if isinstance(node, Related) and _is_structure(node):
        # `{"ilmd": {"ex:lot": …}}` reads as a relation; on events it is a structure.
        return _alternatives(_under(node.path[0], node.filter))
    raise EventRuleError("rules on epcis_event test the event's own fields, not relations")


def _is_structure(node: Related) -> bool:
    if len(node.path) != 1 or node.quantifier is not None:
        return False
    holder = node.path[0]
    return holder in FIELD_SCOPES or any(holder == h for h, _ in MATCHED_MEMBERS)


def _under(holder: str, node: Filter) -> Filter:
    """`node` with each condition's path starting at `holder`."""
    if isinstance(node, And):
        return And(tuple(_under(holder, item) for item in node.items))
    if isinstance(node, Or):
        return Or(tuple(_under(holder, item) for item in node.items))
    if isinstance(node, Condition):
        return dataclasses.replace(node, path=(holder, *node.path))
    raise EventRuleError(f"{holder}: rules test the fields directly inside it")


def _both(parts: Sequence[Parameters]) -> Parameters:
    merged: Parameters = {}
    for part in parts:
        for name, values in part.items():
            if name in merged:
                raise EventRuleError(
                    f"{name} is tested twice in one condition; list the values with _in"
                )
            merged[name] = values
    return merged


#: Structures whose extension fields a rule may test, and the query family's scope.
FIELD_SCOPES = {
    "ilmd": "ILMD_",
    "errorDeclaration": "ERROR_DECLARATION_",
    "readPoint": "readPoint_",
    "bizLocation": "bizLocation_",
    "sensorElement": "SENSORELEMENT_",
    "sensorMetadata": "SENSORMETADATA_",
    "sensorReport": "SENSORREPORT_",
}
#: Rule operators on extension fields, and the query family's operator.
FIELD_OPERATORS = {
    "_eq": "EQ_",
    "_in": "EQ_",
    "_gt": "GT_",
    "_gte": "GE_",
    "_lt": "LT_",
    "_lte": "LE_",
    "_nnull": "EXISTS_",
}


def _field_parameters(condition: Condition) -> Parameters | None:
    """An extension field's test (`{"ex:lot": …}`, `{"ilmd": {"ex:lot": …}}`) as the
    query family that states it, or None when the path names no extension field."""
    *holder, field = condition.path
    if ":" not in field or len(holder) > 1:
        return None
    scope = FIELD_SCOPES.get(holder[0]) if holder else ""
    if scope is None:
        return None
    prefix = FIELD_OPERATORS.get(condition.operator)
    if prefix is None:
        known = ", ".join(FIELD_OPERATORS)
        raise EventRuleError(f"{field} takes {known} in a rule, not {condition.operator}")
    if prefix == "EXISTS_":
        return {f"EXISTS_{scope}{field}": [""]}
    return {f"{prefix}{scope}{field}": _texts(field, condition.value)}


def _parameters(condition: Condition) -> Parameters:
    extension = _field_parameters(condition)
    if extension is not None:
        return extension
    member = MATCHED_MEMBERS.get(tuple(condition.path))
    if member is not None:
        if condition.operator not in ("_eq", "_in"):
            raise EventRuleError(
                f"{'.'.join(condition.path)} takes _eq or _in in a rule, not {condition.operator}"
            )
        return {member: _texts(".".join(condition.path), condition.value)}
    if len(condition.path) != 1:
        raise EventRuleError(f"{'.'.join(condition.path)}: not a field of an event")
    field, op = condition.path[0], condition.operator
    if field in MATCHED_FIELDS:
        if op not in ("_eq", "_in"):
            raise EventRuleError(f"{field} takes _eq or _in in a rule, not {op}")
        return {MATCHED_FIELDS[field]: _texts(field, condition.value)}
    if field in TIME_FIELDS:
        bound = {"_gte": "GE_", "_lt": "LT_"}.get(op)
        if bound is None:
            raise EventRuleError(f"{field} takes _gte or _lt in a rule, not {op}")
        return {bound + TIME_FIELDS[field]: _texts(field, condition.value)}
    known = ", ".join([*MATCHED_FIELDS, *TIME_FIELDS])
    raise EventRuleError(f"{field}: not a field a rule on events can test ({known})")


def _texts(field: str, value: Any) -> list[str]:
    values = value if isinstance(value, list | tuple) else [value]
    # Numbers are fine for extension fields, which compare numerically.
    values = [
        str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v for v in values
    ]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise EventRuleError(f"{field}: the values must be non-empty strings or numbers")
    return [v.strip() for v in values]
