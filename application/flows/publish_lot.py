"""Publish Lot (spec §1 rule 5): a lot becomes an EPCIS commissioning event, captured
through the same path as every other event (rule 2), and its status `published`."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.epcis.capture import CaptureService
from application.epcis.capture_outcomes import EventIdConflict, InvalidDocument
from application.items.rules import Item
from application.items.service import ItemsService
from application.items.unit_of_work import Origin
from application.service.errors import Forbidden, InvalidPayload
from domain.access.policies import Accountability
from domain.epcis.outbound import EPCIS_CONTEXT
from domain.epcis.timestamps import format_record_time
from domain.masterdata.locations import location_place
from domain.masterdata.lot_event import LotNotPublishable, lot_commissioning_event


@dataclass(frozen=True)
class Published:
    """What publishing did: the lot's event, and whether this call captured it."""

    lot: str
    event_id: str
    created: bool


class LotPublisher:
    """Turns lots into events, once each."""

    def __init__(
        self,
        items: ItemsService,
        capture: CaptureService,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._items = items
        self._capture = capture
        self._clock = clock

    async def publish(self, caller: Accountability, key: str) -> Published:
        """Capture the lot's event (permission `update` on the lot) and mark it published;
        a lot published before keeps its one event."""
        if not await self._items.allows(caller, "lot", "update", key):
            raise Forbidden('You don\'t have permission to "update" this "lot" item.')
        lot = await self._one("lot", key)
        if lot is None:
            raise Forbidden('You don\'t have permission to "update" this "lot" item.')
        product = await self._one("product", lot.get("product"))
        place = None
        location = await self._one("location", lot.get("production_location"))
        if location is not None:
            place = location_place(
                location["id"], location.get("gln"), location.get("gln_extension")
            )
        try:
            event = lot_commissioning_event(
                key,
                lot,
                (product or {}).get("gtin"),
                await self._company_prefix(product),
                place,
                format_record_time(self._clock()),
            )
        except LotNotPublishable as exc:
            raise InvalidPayload(f"The lot cannot be published: {exc}") from exc
        document = {
            "@context": [EPCIS_CONTEXT],
            "type": "EPCISDocument",
            "schemaVersion": "2.0",
            "creationDate": event["eventTime"],
            "epcisBody": {"eventList": [event]},
        }
        try:
            outcome = await self._capture.capture(document, "rollback", caller.user, caller.account)
        except InvalidDocument as exc:
            # A value the lot may hold but an event may not (a unit of measure in
            # lower case…): nothing was captured.
            reasons = "; ".join(str(v) for v in exc.violations)
            raise InvalidPayload(f"The lot's event would not be valid EPCIS: {reasons}") from exc
        except EventIdConflict:
            # The lot's event ID is stored already, from an earlier publication at another
            # time: the lot is published, and its record keeps the first event.
            return Published(key, event["eventID"], False)
        await self._items.set_values("lot", key, {"status": "published"}, origin=Origin.of(caller))
        return Published(key, event["eventID"], outcome.events_stored == 1)

    async def _company_prefix(self, product: Item | None) -> str | None:
        """The GS1 company prefix of the product's manufacturer, else of its brand owner."""
        for role in ("product_manufacturer", "brand_owner"):
            organisation = await self._one("organisation", (product or {}).get(role))
            prefix = (organisation or {}).get("organisation_company_prefix")
            if prefix:
                return str(prefix)
        return None

    async def _one(self, collection: str, key: Any) -> Item | None:
        return await self._items.lookup(collection, key)
