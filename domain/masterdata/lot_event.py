"""Publish Lot (spec §1 rule 5): the EPCIS commissioning event that announces a lot."""

import uuid
from typing import Any

from domain.gs1.digital_link import GS1_RESOLVER
from domain.gs1.identifiers import IdentifierError, lgtin, lot_path, normalise_gtin

#: Names the one event of each lot: publishing again finds it already captured.
_LOT_EVENTS = uuid.UUID("2b8f3f2e-7c59-4f55-8a5e-4c1d0e6d8a93")
#: Lot dates as CBV master data attributes in ILMD.
_ILMD_DATES = {
    "production_date": "cbvmda:productionDate",
    "expiry_date": "cbvmda:itemExpirationDate",
    "best_before_date": "cbvmda:bestBeforeDate",
    "sell_by_date": "cbvmda:sellByDate",
    "harvest_start_date": "cbvmda:harvestStartDate",
    "harvest_end_date": "cbvmda:harvestEndDate",
}


class LotNotPublishable(ValueError):
    """The lot lacks what its event needs; the message says what."""


def lot_event_id(lot_key: str) -> str:
    """The event ID of a lot's commissioning event."""
    return f"urn:uuid:{uuid.uuid5(_LOT_EVENTS, lot_key)}"


def lot_epc_class(gtin: str, lot_number: str, company_prefix: str | None) -> str:
    """The lot's EPC class: an LGTIN URN where the company prefix is known, else the
    lot's Digital Link URI."""
    if company_prefix:
        try:
            return lgtin(gtin, company_prefix, lot_number)
        except IdentifierError:
            pass
    return GS1_RESOLVER.rstrip("/") + lot_path(gtin, lot_number)


def lot_commissioning_event(
    lot_key: str,
    lot: dict[str, Any],
    gtin: str | None,
    company_prefix: str | None,
    place: str | None,
    at: str,
) -> dict[str, Any]:
    """The ObjectEvent (ADD, commissioning) of a lot: its quantity of its LGTIN class,
    its dates in ILMD, made at `place` (the production location's EPC)."""
    if not gtin:
        raise LotNotPublishable("The lot's product has no GTIN; its event could not name it")
    lot_number = lot.get("lot_number")
    if not lot_number:
        raise LotNotPublishable('The lot has no "lot_number"')
    try:
        gtin = normalise_gtin(gtin)
    except IdentifierError as exc:
        raise LotNotPublishable(str(exc)) from exc
    try:
        epc_class = lot_epc_class(gtin, str(lot_number), company_prefix)
    except IdentifierError as exc:
        raise LotNotPublishable(str(exc)) from exc
    entry: dict[str, Any] = {"epcClass": epc_class}
    if lot.get("quantity") is not None:
        entry["quantity"] = float(lot["quantity"])
        if lot.get("uom"):
            entry["uom"] = str(lot["uom"])
    event: dict[str, Any] = {
        "type": "ObjectEvent",
        "eventID": lot_event_id(lot_key),
        "eventTime": at,
        "eventTimeZoneOffset": "+00:00",
        "epcList": [],
        "action": "ADD",
        "bizStep": "commissioning",
        "disposition": "active",
        "quantityList": [entry],
    }
    ilmd = {name: lot[field] for field, name in _ILMD_DATES.items() if lot.get(field)}
    if ilmd:
        event["ilmd"] = ilmd
    if place:
        event["readPoint"] = {"id": place}
        event["bizLocation"] = {"id": place}
    return event
