"""What an EPCIS event is found by: the terms the query tables index, in canonical form.

EPCs become canonical GS1 Digital Link URIs and CBV values GS1 Web URIs, so an event
written with URNs is found by a query written with Digital Link or bare words, and back.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.epcis.cbv import normalise_cbv
from domain.epcis.curies import event_namespaces, with_iris_expanded
from domain.epcis.field_terms import FieldRow, field_rows
from domain.epcis.sensor_terms import ElementRow, ReportRow, sensor_rows
from domain.epcis.timestamps import timestamp_micros
from domain.epcis.units import in_si
from domain.gs1 import canonical_epc
from domain.gs1.link_to_urn import spelled_prefix_lengths

_EPC_ROLES = (
    ("epcList", "epc"),
    ("childEPCs", "child"),
    ("inputEPCList", "input"),
    ("outputEPCList", "output"),
)
_QUANTITY_ROLES = (
    ("quantityList", "quantity"),
    ("childQuantityList", "child"),
    ("inputQuantityList", "input"),
    ("outputQuantityList", "output"),
)


@dataclass
class EventTerms:
    """The indexed terms of one event."""

    event_type: str
    event_time: int
    action: str | None
    biz_step: str | None
    disposition: str | None
    read_point: str | None
    biz_location: str | None
    transformation_id: str | None
    epcs: list[tuple[str, str]] = field(default_factory=list)
    #: (role, class, quantity, uom, dimension, quantity in SI)
    quantities: list[tuple[str, str, float | None, str | None, str | None, float | None]] = field(
        default_factory=list
    )
    biz_transactions: list[tuple[str | None, str]] = field(default_factory=list)
    parties: list[tuple[str, str | None, str]] = field(default_factory=list)
    fields: list[FieldRow] = field(default_factory=list)
    #: Error declarations only: when, why (canonical) and the events that correct it.
    declaration_time: int | None = None
    error_reason: str | None = None
    corrective_ids: list[str] = field(default_factory=list)
    sensor_elements: list[ElementRow] = field(default_factory=list)
    sensor_reports: list[ReportRow] = field(default_factory=list)
    #: (set or unset, canonical disposition) of persistentDisposition
    persistent: list[tuple[str, str]] = field(default_factory=list)
    #: Canonical EPC or class → the length of its company prefix, where the event's
    #: spelling tells it (see `spelled_prefix_lengths`): how the trace spells it back.
    prefix_lengths: dict[str, int] = field(default_factory=dict)

    def __reduce__(self) -> tuple[type["EventTerms"], tuple[Any, ...]]:
        # Terms cross process boundaries by the thousand; as plain arguments they pickle
        # in half the time of a dataclass's state dict.
        return (EventTerms, tuple(self.__dict__.values()))


def _place(value: Any) -> str | None:
    if isinstance(value, Mapping):
        place = value.get("id")
        return canonical_epc(place) if isinstance(place, str) else None
    return None


def _text(value: Any) -> str | None:
    # The index tables hold text: anything else a document carried is not matched on.
    return value if isinstance(value, str) else None


def _vocabulary(kind: str, value: Any) -> str | None:
    return normalise_cbv(kind, value) if isinstance(value, str) else None


def event_terms(event: Mapping[str, Any], namespaces: dict[str, str]) -> EventTerms:
    """Extract the indexed terms of a valid EPCIS 2.0 event."""
    # CURIEs are indexed as the IRIs they name, so either form finds the event.
    namespaces = event_namespaces(event, namespaces)
    event = with_iris_expanded(event, namespaces)
    terms = EventTerms(
        event_type=str(event.get("type")),
        event_time=timestamp_micros(str(event.get("eventTime"))),
        action=_text(event.get("action")),
        biz_step=_vocabulary("bizStep", event.get("bizStep")),
        disposition=_vocabulary("disposition", event.get("disposition")),
        read_point=_place(event.get("readPoint")),
        biz_location=_place(event.get("bizLocation")),
        transformation_id=_text(event.get("transformationID")),
    )
    spelled: list[tuple[str, str]] = []
    parent = event.get("parentID")
    if isinstance(parent, str):
        spelled.append((parent, canonical_epc(parent)))
        terms.epcs.append(("parent", spelled[-1][1]))
    for key, role in _EPC_ROLES:
        for epc in event.get(key) or ():
            if isinstance(epc, str):
                spelled.append((epc, canonical_epc(epc)))
                terms.epcs.append((role, spelled[-1][1]))
    for key, role in _QUANTITY_ROLES:
        for element in event.get(key) or ():
            if isinstance(element, Mapping) and isinstance(element.get("epcClass"), str):
                terms.quantities.append(_quantity(role, element))
                spelled.append((element["epcClass"], terms.quantities[-1][1]))
    terms.prefix_lengths = spelled_prefix_lengths(spelled)
    for transaction in event.get("bizTransactionList") or ():
        if isinstance(transaction, Mapping) and isinstance(transaction.get("bizTransaction"), str):
            terms.biz_transactions.append(
                (
                    _vocabulary("bizTransactionType", transaction.get("type")),
                    canonical_epc(transaction["bizTransaction"]),
                )
            )
    for key, direction in (("sourceList", "source"), ("destinationList", "destination")):
        for party in event.get(key) or ():
            if isinstance(party, Mapping) and isinstance(party.get(direction), str):
                terms.parties.append(
                    (
                        direction,
                        _vocabulary("sourceDestType", party.get("type")),
                        canonical_epc(party[direction]),
                    )
                )
    terms.fields = field_rows(event, namespaces)
    terms.sensor_elements, terms.sensor_reports = sensor_rows(event, namespaces)
    persistent = event.get("persistentDisposition")
    if isinstance(persistent, Mapping):
        for kind in ("set", "unset"):
            for value in persistent.get(kind) or ():
                if isinstance(value, str):
                    terms.persistent.append((kind, normalise_cbv("disposition", value)))
    declaration = event.get("errorDeclaration")
    if isinstance(declaration, Mapping):
        _add_declaration(terms, declaration)
    return terms


def _quantity(
    role: str, element: Mapping[str, Any]
) -> tuple[str, str, float | None, str | None, str | None, float | None]:
    quantity = element.get("quantity")
    uom = element.get("uom") if isinstance(element.get("uom"), str) else None
    amount = float(quantity) if isinstance(quantity, int | float) else None
    dimension, si = in_si(amount, uom) if amount is not None else (None, None)
    return (role, canonical_epc(element["epcClass"]), amount, uom, dimension, si)


def _add_declaration(terms: EventTerms, declaration: Mapping[str, Any]) -> None:
    terms.declaration_time = timestamp_micros(str(declaration.get("declarationTime")))
    terms.error_reason = _vocabulary("errorReason", declaration.get("reason"))
    corrective = declaration.get("correctiveEventIDs") or ()
    terms.corrective_ids = list(dict.fromkeys(i for i in corrective if isinstance(i, str)))
