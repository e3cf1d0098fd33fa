"""EPCIS 2.0 event-query parameters (SimpleEventQuery) parsed into a typed query.

Values are canonicalised here, the same way captured events are indexed, so matching is
independent of how the event or the query spelled an EPC or a CBV value.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from domain.epcis.attribute_parameters import (
    AttributeMatch,
    AttributeParameterError,
    is_attribute_parameter,
    parse_attribute_match,
)
from domain.epcis.cbv import normalise_cbv
from domain.epcis.field_parameters import (
    FieldMatch,
    FieldParameterError,
    field_names,
    field_parameter,
    parse_field_match,
)
from domain.epcis.fields import EVENT_TYPES
from domain.epcis.sensor_parameters import (
    SENSOR_LIST_PARAMETERS,
    ColumnMatch,
    SensorParameterError,
    is_sensor_parameter,
    parse_sensor_match,
)
from domain.epcis.timestamps import InvalidTimestamp, timestamp_micros
from domain.gs1 import Glob, Wildcard, canonical_epc, epc_pattern

EPC_ROLES: dict[str, tuple[str, ...]] = {
    "MATCH_epc": ("epc", "child"),
    "MATCH_parentID": ("parent",),
    "MATCH_inputEPC": ("input",),
    "MATCH_outputEPC": ("output",),
    "MATCH_anyEPC": ("epc", "child", "parent", "input", "output"),
}
CLASS_ROLES: dict[str, tuple[str, ...]] = {
    "MATCH_epcClass": ("quantity", "child"),
    "MATCH_inputEPCClass": ("input",),
    "MATCH_outputEPCClass": ("output",),
    "MATCH_anyEPCClass": ("quantity", "child", "input", "output"),
}
QUANTITY_OPERATORS = {"EQ": "=", "GT": ">", "GE": ">=", "LT": "<", "LE": "<="}


#: Most values one parameter may list: keeps statements within every driver's limits.
MAX_VALUES = 1000
QUANTITY_PARAMETERS = {f"{op}_quantity": sql for op, sql in QUANTITY_OPERATORS.items()}
#: The standard's openapi.yaml and its query schema spell these two differently.
DECLARATION_TIME_PARAMETERS = {
    "GE_errorDeclarationTime": "ge_declaration_time",
    "GE_errorDeclaration_Time": "ge_declaration_time",
    "LT_errorDeclarationTime": "lt_declaration_time",
    "LT_errorDeclaration_Time": "lt_declaration_time",
}


#: Event and record time bounds: GE_ is inclusive, LT_ exclusive.
TIME_PARAMETERS = ("GE_eventTime", "LT_eventTime", "GE_recordTime", "LT_recordTime")
#: At most this many events (eventCountLimit), or none when more match (maxEventCount).
COUNT_PARAMETERS = ("eventCountLimit", "maxEventCount")


class QueryParameterError(ValueError):
    """A query parameter that is unknown, unsupported or has a bad value."""


@dataclass(frozen=True)
class EpcMatch:
    """Events with an EPC (or EPC class) in one of `roles` matching one of `patterns`."""

    table: Literal["epcs", "quantities"]
    roles: tuple[str, ...]
    patterns: tuple[Glob, ...]


@dataclass(frozen=True)
class TypedValueMatch:
    """Events with a business transaction, source or destination of a type and value."""

    kind: Literal["biz_transaction", "source", "destination"]
    type: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class EventQuery:
    """A parsed SimpleEventQuery: every filter is a conjunction, values within one are OR."""

    event_types: tuple[str, ...] = ()
    ge_event_time: int | None = None
    lt_event_time: int | None = None
    ge_record_time: int | None = None
    lt_record_time: int | None = None
    actions: tuple[str, ...] = ()
    biz_steps: tuple[str, ...] = ()
    dispositions: tuple[str, ...] = ()
    read_points: tuple[str, ...] = ()
    biz_locations: tuple[str, ...] = ()
    biz_location_trees: tuple[Glob, ...] = ()
    read_point_trees: tuple[Glob, ...] = ()
    #: The places WD_readPoint names (canonical), whose sub-locations count too.
    within_read_points: tuple[str, ...] = ()
    #: EQ_persistentDisposition_set / _unset (canonical dispositions).
    persistent_set: tuple[str, ...] = ()
    persistent_unset: tuple[str, ...] = ()
    #: Only the first N matching events in the order asked for (eventCountLimit) ...
    event_count_limit: int | None = None
    #: ... or none at all when more than N match (maxEventCount: QueryTooLargeException).
    max_event_count: int | None = None
    #: The places WD_bizLocation names (canonical), whose sub-locations count too.
    within_biz_locations: tuple[str, ...] = ()
    #: Only events captured by users of these accounts (a tenant's scope), when given.
    capture_accounts: tuple[str, ...] | None = None
    #: Whose captured master data WD_, HASATTR_ and EQ_ATTR_ read (every account's if None).
    master_data_accounts: tuple[str, ...] | None = None
    transformation_ids: tuple[str, ...] = ()
    event_ids: tuple[str, ...] = ()
    #: Only error declarations (EXISTS_errorDeclaration, and implied by the next three).
    declared: bool = False
    ge_declaration_time: int | None = None
    lt_declaration_time: int | None = None
    error_reasons: tuple[str, ...] = ()
    corrective_event_ids: tuple[str, ...] = ()
    quantity: tuple[tuple[str, float], ...] = ()
    epc_matches: tuple[EpcMatch, ...] = ()
    typed_values: tuple[TypedValueMatch, ...] = ()
    field_matches: tuple[FieldMatch, ...] = ()
    column_matches: tuple[ColumnMatch, ...] = ()
    attribute_matches: tuple[AttributeMatch, ...] = ()
    order_by: Literal["position", "eventTime", "recordTime", "field"] = "position"
    #: The names an extension field to order by may have (orderBy=<fieldname>).
    order_field: tuple[str, ...] = ()
    descending: bool = False


def split_values(values: Iterable[str]) -> list[str]:
    """All values of a parameter: it may repeat, and one value may list several with `|`."""
    result: list[str] = []
    for value in values:
        result.extend(part.strip() for part in value.split("|") if part.strip())
    return result


def _one(name: str, values: Sequence[str]) -> str:
    parts = split_values(values)
    if len(parts) != 1:
        raise QueryParameterError(f"{name} takes exactly one value, got {len(parts)}")
    return parts[0]


def _time(name: str, values: Sequence[str]) -> int:
    try:
        return timestamp_micros(_one(name, values))
    except InvalidTimestamp as exc:
        raise QueryParameterError(f"{name}: {exc}") from exc


def _number(name: str, values: Sequence[str]) -> float:
    text = _one(name, values)
    try:
        number = float(text)
    except ValueError as exc:
        raise QueryParameterError(f"{name}: '{text}' is not a number") from exc
    if not math.isfinite(number):
        raise QueryParameterError(f"{name}: '{text}' is not a finite number")
    return number


def _flag(name: str, values: Sequence[str]) -> bool:
    # 1.2 made EXISTS_ a parameter without a value; 2.0's openapi a boolean and its query
    # schema an integer: each spelling of "on" turns the filter on, `false` leaves it off.
    parts = split_values(values) or [""]
    if len(parts) != 1:
        raise QueryParameterError(f"{name} takes at most one value, got {len(parts)}")
    value = parts[0].lower()
    if value in ("", "true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise QueryParameterError(f"{name}: {parts[0]!r} is not true or false")


def _count(name: str, values: Sequence[str]) -> int:
    text = _one(name, values)
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise QueryParameterError(f"{name} must be one whole number, not {text!r}")
    return int(text)


def _field_match(name: str, raw: Sequence[str]) -> FieldMatch:
    values = split_values(raw)
    if not values and not name.startswith("EXISTS_"):
        raise QueryParameterError(f"{name} has no value")
    if len(values) > MAX_VALUES:
        raise QueryParameterError(f"{name} lists more than {MAX_VALUES} values")
    if "\x00" in name or any("\x00" in value for value in values):
        raise QueryParameterError(f"{name!r} contains a NUL character")
    try:
        return parse_field_match(name, values)
    except FieldParameterError as exc:
        raise QueryParameterError(str(exc)) from exc


def place_tree(place: str) -> tuple[Glob, Glob]:
    """The place (canonical) and what lies within it by its GLN extension alone:
    `…/414/<gln>/254/<ext>` is a sub-location of `…/414/<gln>`. Location master data
    adds the rest of the hierarchy."""
    return (place,), (place + "/254/", Wildcard.ANY)


def parse_event_query(params: Mapping[str, Sequence[str]]) -> EventQuery:
    """Parse SimpleEventQuery parameters (each a list of raw strings) into an EventQuery.

    Raises QueryParameterError for an unknown parameter, one this service does not
    support yet, or a value of the wrong shape.
    """
    query: dict[str, object] = {}
    epc_matches: list[EpcMatch] = []
    typed: list[TypedValueMatch] = []
    quantity: list[tuple[str, float]] = []
    fields: list[FieldMatch] = []
    columns: list[ColumnMatch] = []
    attributes: list[AttributeMatch] = []
    for name, raw in params.items():
        if name == "EXISTS_errorDeclaration":
            query["declared"] = _flag(name, raw)
            continue
        if name == "EXISTS_sensorElementList":
            if _flag(name, raw):
                columns.append(parse_sensor_match(name, []))
            continue
        if field_parameter(name) is not None:
            fields.append(_field_match(name, raw))
            continue
        values = split_values(raw)
        if not values:
            raise QueryParameterError(f"{name} has no value")
        if len(values) > MAX_VALUES:
            raise QueryParameterError(f"{name} lists more than {MAX_VALUES} values")
        if "\x00" in name or any("\x00" in value for value in values):
            raise QueryParameterError(f"{name!r} contains a NUL character")
        if name == "eventType":
            # An extension event's type is an IRI: anything with a scheme may name one.
            unknown = [v for v in values if v not in EVENT_TYPES and ":" not in v]
            if unknown:
                raise QueryParameterError(
                    f"eventType: {unknown[0]!r} is neither one of {', '.join(EVENT_TYPES)}"
                    " nor a URI naming an extension event type"
                )
            query["event_types"] = tuple(values)
        elif name in TIME_PARAMETERS:
            key = name[:2].lower() + "_" + ("event_time" if "event" in name else "record_time")
            query[key] = _time(name, raw)
        elif name == "EQ_action":
            bad = [v for v in values if v not in ("ADD", "OBSERVE", "DELETE")]
            if bad:
                raise QueryParameterError(f"EQ_action: {bad[0]!r} is not ADD, OBSERVE or DELETE")
            query["actions"] = tuple(values)
        elif name == "EQ_bizStep":
            query["biz_steps"] = tuple(normalise_cbv("bizStep", v) for v in values)
        elif name == "EQ_disposition":
            query["dispositions"] = tuple(normalise_cbv("disposition", v) for v in values)
        elif name == "EQ_readPoint":
            query["read_points"] = tuple(canonical_epc(v) for v in values)
        elif name == "EQ_bizLocation":
            query["biz_locations"] = tuple(canonical_epc(v) for v in values)
        elif name in ("WD_bizLocation", "WD_readPoint"):
            places = tuple(canonical_epc(v) for v in values)
            kind = "biz_location" if name == "WD_bizLocation" else "read_point"
            query[f"within_{kind}s"] = places
            query[f"{kind}_trees"] = tuple(g for p in places for g in place_tree(p))
        elif name in ("EQ_persistentDisposition_set", "EQ_persistentDisposition_unset"):
            key = "persistent_" + name.rpartition("_")[2]
            query[key] = tuple(normalise_cbv("disposition", v) for v in values)
        elif name in COUNT_PARAMETERS:
            key = "event_count_limit" if name == "eventCountLimit" else "max_event_count"
            query[key] = _count(name, raw)
        elif name == "EQ_transformationID":
            query["transformation_ids"] = tuple(values)
        elif name == "EQ_eventID":
            query["event_ids"] = tuple(values)
        elif name in DECLARATION_TIME_PARAMETERS:
            query[DECLARATION_TIME_PARAMETERS[name]] = _time(name, raw)
        elif name == "EQ_errorReason":
            query["error_reasons"] = tuple(normalise_cbv("errorReason", v) for v in values)
        elif name == "EQ_correctiveEventID":
            query["corrective_event_ids"] = tuple(values)
        elif name in EPC_ROLES:
            epc_matches.append(
                EpcMatch("epcs", EPC_ROLES[name], tuple(epc_pattern(v) for v in values))
            )
        elif name in CLASS_ROLES:
            epc_matches.append(
                EpcMatch("quantities", CLASS_ROLES[name], tuple(epc_pattern(v) for v in values))
            )
        elif name in QUANTITY_PARAMETERS:
            quantity.append((QUANTITY_PARAMETERS[name], _number(name, raw)))
        elif name.startswith(("EQ_bizTransaction_", "EQ_source_", "EQ_destination_")):
            prefix, _, type_name = name[3:].partition("_")
            if not type_name:
                raise QueryParameterError(f"{name} names no type after the underscore")
            kind = {"bizTransaction": "biz_transaction"}.get(prefix, prefix)
            vocabulary = "bizTransactionType" if kind == "biz_transaction" else "sourceDestType"
            typed.append(
                TypedValueMatch(
                    kind,  # type: ignore[arg-type]
                    normalise_cbv(vocabulary, type_name),
                    tuple(canonical_epc(v) for v in values),
                )
            )
        elif name == "orderBy":
            order = _one(name, raw)
            if order in ("eventTime", "recordTime"):
                query["order_by"] = order
            elif (field_parameter(f"EQ_{order}") or ("", "-", ""))[1] == "":
                # An extension field of the event itself, named as for EQ_<fieldname>.
                query["order_by"] = "field"
                query["order_field"] = field_names(order)
            else:
                raise QueryParameterError(
                    f"orderBy: {order!r} is neither eventTime, recordTime nor the name of an"
                    " extension field"
                )
        elif name == "orderDirection":
            direction = _one(name, raw)
            if direction not in ("ASC", "DESC"):
                raise QueryParameterError(f"orderDirection: {direction!r} is not ASC or DESC")
            query["descending"] = direction == "DESC"
        elif is_sensor_parameter(name):
            try:
                columns.append(parse_sensor_match(name, values))
            except SensorParameterError as exc:
                raise QueryParameterError(str(exc)) from exc
        elif is_attribute_parameter(name):
            try:
                attributes.append(parse_attribute_match(name, values))
            except AttributeParameterError as exc:
                raise QueryParameterError(str(exc)) from exc
        else:
            raise QueryParameterError(f"{name} is not a known EPCIS query parameter")
    if "event_count_limit" in query and "max_event_count" in query:
        raise QueryParameterError("eventCountLimit and maxEventCount exclude each other")
    if "event_count_limit" in query and "order_by" not in query:
        raise QueryParameterError("eventCountLimit needs orderBy: it counts in that order")
    if "order_by" in query:
        # The standard: orderDirection defaults to DESC when orderBy is given ...
        query.setdefault("descending", True)
    else:
        # ... and is ignored without orderBy.
        query.pop("descending", None)
    return EventQuery(
        epc_matches=tuple(epc_matches),
        typed_values=tuple(typed),
        field_matches=tuple(fields),
        column_matches=tuple(columns),
        attribute_matches=tuple(attributes),
        quantity=tuple(quantity),
        **query,  # type: ignore[arg-type]
    )


_TIME = "a date-time with offset (RFC 3339)"
_CBV = "bare word or GS1 Web URI of the CBV value, or a custom URI; several comma-separated"
_EPC = "EPC URN, GS1 Digital Link or pattern (`*` for a part); several comma-separated"
_PLACE = "location identifier (SGLN URN or Digital Link); several comma-separated"
_IDS = "identifiers; several comma-separated"


def named_parameters() -> dict[str, str]:
    """Every SimpleEventQuery parameter with a fixed name, and the value it takes: the list
    the parser above reads, for documents that describe the query (the OpenAPI document)."""
    return {
        "eventType": "ObjectEvent, AggregationEvent, TransactionEvent, TransformationEvent,"
        " AssociationEvent or an extension type's URI; several comma-separated",
        **dict.fromkeys(TIME_PARAMETERS, _TIME),
        "EQ_action": "ADD, OBSERVE or DELETE; several comma-separated",
        "EQ_bizStep": _CBV,
        "EQ_disposition": _CBV,
        "EQ_readPoint": _PLACE,
        "EQ_bizLocation": _PLACE,
        "WD_readPoint": _PLACE + "; its sub-locations match too",
        "WD_bizLocation": _PLACE + "; its sub-locations match too",
        "EQ_persistentDisposition_set": _CBV,
        "EQ_persistentDisposition_unset": _CBV,
        **dict.fromkeys(COUNT_PARAMETERS, "a whole number of at least 1"),
        "EQ_transformationID": _IDS,
        "EQ_eventID": _IDS,
        "EXISTS_errorDeclaration": "true (or empty) for error declarations only",
        **dict.fromkeys(DECLARATION_TIME_PARAMETERS, _TIME),
        "EQ_errorReason": _CBV,
        "EQ_correctiveEventID": _IDS,
        **dict.fromkeys(EPC_ROLES, _EPC),
        **dict.fromkeys(CLASS_ROLES, _EPC),
        **dict.fromkeys(QUANTITY_PARAMETERS, "a number"),
        "orderBy": "eventTime, recordTime or an extension field's name",
        "orderDirection": "ASC or DESC (DESC when orderBy is given alone)",
        **dict.fromkeys(SENSOR_LIST_PARAMETERS, "values; several comma-separated"),
        "EQ_booleanValue": "true or false",
        "EXISTS_sensorElementList": "true (or empty) for events with sensor data",
    }


#: The parameter families whose names carry a field, type or unit: (pattern, meaning).
PARAMETER_FAMILIES = (
    ("EQ_bizTransaction_<type>", "a business transaction of that type with one of the values"),
    ("EQ_source_<type>", "a source of that type with one of the values"),
    ("EQ_destination_<type>", "a destination of that type with one of the values"),
    (
        "<EQ|GT|GE|LT|LE|EXISTS>_[INNER_][<scope>_]<field IRI or CURIE>",
        "an extension field (of the event, ILMD, error declaration, sensor element, sensor"
        " metadata or report, readPoint or bizLocation) compared with the values",
    ),
    (
        "<EQ|GT|GE|LT|LE>_<value|minValue|maxValue|meanValue|sDev|percValue|quantity>_<uom>",
        "a sensor value or quantity in a unit (UN/ECE Rec. 20 code), converted to SI",
    ),
    ("<GE|LT>_<startTime|endTime|time>", "sensor element or report times"),
    ("<GT|GE|LT|LE>_percRank", "the percentile rank of a sensor report"),
    ("HASATTR_<readPoint|bizLocation>", "the place has one of the master-data attributes"),
    ("EQ_ATTR_<readPoint|bizLocation>_<attribute>", "the place's attribute has one of the values"),
)
