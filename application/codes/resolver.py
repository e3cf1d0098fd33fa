"""The GS1 Digital Link resolver: a scanned code answered with a redirect or a label's
worth of JSON, every resolution kept as a scan, and the integrity rules applied to it.

It is public (consumers scan codes with no account), so it reveals only what a product's
label shows: never a code's status, reservation or customer.
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from application.access.throttle import Throttle
from application.items.rules import Item
from application.items.service import ItemsService
from application.service.blocking import BlockingRunner
from application.service.read_model_follower import ReadModelFollower
from domain.codes.integrity import DuplicateThresholds, Finding, PriorScan, ScanFacts, findings
from domain.codes.link_paths import ScannedKey, parse_scan_path
from domain.codes.scan import Scan
from domain.collections.coercion import format_datetime
from domain.collections.filters import parse_filter
from domain.collections.item_query import ItemQuery
from domain.masterdata.integrity import INTEGRITY_CHECK_RESULT
from domain.records.record import Record
from infrastructure.event_store import EventStore
from projections.codes.reader import CodeReader, FoundCode

#: What a label shows of a product and a lot.
_PRODUCT_LABEL = (
    "product_name",
    "gtin",
    "brand",
    "variant_description",
    "net_content",
    "net_content_unit",
    "country_of_origin",
    "digital_link",
)
_LOT_LABEL = ("lot_number", "production_date", "expiry_date", "best_before_date", "sell_by_date")


@dataclass(frozen=True)
class ScanRequest:
    """A scan as the resolver's client made it."""

    path: str
    query_string: str
    ip: str | None
    user_agent: str | None
    latitude: float | None = None
    longitude: float | None = None
    country: str | None = None


@dataclass(frozen=True)
class Resolution:
    """Where to send the client (`redirect`), and what to describe otherwise."""

    redirect: str | None
    description: dict[str, Any]


def scope_of(key: ScannedKey) -> tuple[str, str]:
    """The scope and code under which a scanned key is stored."""
    if key.kind == "sgtin":
        assert key.serial is not None
        return f"sgtin:{key.key}", key.serial
    if key.kind == "grai":
        return f"grai:{key.key[:14]}", key.key
    return key.kind, key.key


class Resolver:
    """Resolves scanned Digital Links to redirects and descriptions, keeping each scan."""

    def __init__(
        self,
        store: EventStore,
        codes: CodeReader,
        items: ItemsService,
        blocking: BlockingRunner,
        thresholds: DuplicateThresholds,
        follower: ReadModelFollower,
        throttle: Throttle,
        *,
        read_your_writes_timeout: float,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._codes = codes
        self._items = items
        self._blocking = blocking
        self._thresholds = thresholds
        self._follower = follower
        #: Scans kept per client address and minute: past it, codes still resolve, but
        #: nobody can fill the store with scans or forge results in bulk.
        self._throttle = throttle
        self._timeout = read_your_writes_timeout
        self._clock = clock

    async def resolve(self, request: ScanRequest) -> Resolution | None:
        """The resolution of a scan; None when no such code exists (the scan of a GS1
        key is kept all the same, and found unrecognized)."""
        key = parse_scan_path(request.path)
        if key is None:
            return None
        scope, value = scope_of(key)
        found = await self._blocking.run(self._codes.find, scope, value)
        product = lot = None
        if found is not None and found.product:
            product = await self._one("product", found.product)
            if key.lot is not None:
                lot = await self._lot(found.product, key.lot)
        kept = found is not None or await self._blocking.run(self._worth_a_look, key, scope)
        if kept and await self._throttle.attempt(request.ip) == 0:
            await self._record(request, key, found, product, lot)
        if found is None:
            return None
        redirect = await self._redirect(product, lot)
        description = _describe(key, found, product, lot)
        if redirect is not None and request.query_string:
            redirect += ("&" if "?" in redirect else "?") + request.query_string
        return Resolution(redirect, description)

    def _worth_a_look(self, key: ScannedKey, scope: str) -> bool:
        """Whether an unknown code may be a copy of ours: a GS1 key in a scope we make
        codes in (a serial of one of our GTINs…). Any one-segment path looks like a
        short code, and other companies' keys are not ours to judge."""
        return key.kind != "short_code" and self._codes.any_in(scope)

    async def _redirect(self, product: Item | None, lot: Item | None) -> str | None:
        """The most specific redirection URL that is set: the lot's, the product's, then
        the location where the lot was made."""
        if lot is not None and lot.get("lot_redirection_url"):
            return str(lot["lot_redirection_url"])
        if product is not None and product.get("product_redirection_url"):
            return str(product["product_redirection_url"])
        if lot is not None and lot.get("production_location"):
            location = await self._one("location", lot["production_location"])
            if location is not None and location.get("location_redirection_url"):
                return str(location["location_redirection_url"])
        return None

    async def _record(
        self,
        request: ScanRequest,
        key: ScannedKey,
        found: FoundCode | None,
        product: Item | None,
        lot: Item | None,
    ) -> None:
        now = self._clock()
        at = format_datetime(now)
        account = found.account if found is not None else None
        scan = Scan(
            scan=str(uuid.uuid4()),
            scanned=request.path,
            type=key.kind,
            code=found.id if found else None,
            product=found.product if found else None,
            lot=key.lot,
            account=account,
            at=at,
            ip=request.ip,
            user_agent=request.user_agent,
            latitude=request.latitude,
            longitude=request.longitude,
            country=request.country,
        )
        facts = ScanFacts(
            code_known=found is not None,
            status=found.status if found else None,
            latitude=request.latitude,
            longitude=request.longitude,
            scanned_at=now,
            country=request.country,
            market=await self._market(found),
        )
        prior = await self._prior(found, now)
        results = [
            self._result(finding, scan, request, found, account, at)
            for finding in findings(facts, prior, self._thresholds)
        ]
        position = await self._blocking.run(self._store.save, scan, *results)
        # The next scan's duplicate rule sees this one.
        await self._follower.wait_for(position, self._timeout)

    def _result(
        self,
        finding: Finding,
        scan: Scan,
        request: ScanRequest,
        found: FoundCode | None,
        account: str | None,
        at: str,
    ) -> Record:
        """An integrity check result of the crowd, for a reviewer to look at."""
        key = str(uuid.uuid4())
        values: Item = {
            **INTEGRITY_CHECK_RESULT.defaults(),
            "id": key,
            "status": "new",
            "result": finding.result,
            "check_source": "crowd_sourced",
            "reason": finding.reason,
            "code": found.id if found else request.path,
            "source_scan": {
                "id": scan.id.split(":", 1)[1],
                "scanned": request.path,
                "scanned_at": at,
                "latitude": request.latitude,
                "longitude": request.longitude,
                "country": request.country,
            },
            "product": found.product if found else None,
            "object_location": (
                {"type": "Point", "coordinates": [request.longitude, request.latitude]}
                if request.latitude is not None and request.longitude is not None
                else None
            ),
            "date_created": at,
        }
        if account is not None:
            values["account"] = account
        return Record(INTEGRITY_CHECK_RESULT.name, key, values, None, at)

    async def _prior(self, found: FoundCode | None, now: datetime) -> list[PriorScan]:
        if found is None:
            return []
        since = format_datetime(now - timedelta(seconds=self._thresholds.window_seconds))
        rows = await self._blocking.run(self._codes.recent_scans, found.id, since)
        return [
            PriorScan(r.latitude, r.longitude, datetime.fromisoformat(r.scanned_at)) for r in rows
        ]

    async def _market(self, found: FoundCode | None) -> str | None:
        """The country the code's reservation was made for, when that is known."""
        if found is None or not found.reservation:
            return None
        reservation = await self._one("code_reservation", found.reservation)
        if reservation is None or not reservation.get("reserved_for"):
            return None
        partner = await self._one("organisation", reservation["reserved_for"])
        market = (partner or {}).get("country_code")
        return str(market) if market else None

    async def _one(self, collection: str, key: Any) -> Item | None:
        return await self._items.lookup(collection, key)

    async def _lot(self, product: str, lot_number: str) -> Item | None:
        query = ItemQuery(
            filter=parse_filter({"product": {"_eq": product}, "lot_number": {"_eq": lot_number}}),
            limit=1,
        )
        found = await self._items.find("lot", query)
        return found[0] if found else None


def _describe(
    key: ScannedKey, found: FoundCode, product: Item | None, lot: Item | None
) -> dict[str, Any]:
    """What a label would show of the code."""
    description: dict[str, Any] = {
        "type": found.type,
        "code": found.code,
        "digital_link": found.digital_link,
    }
    if key.kind == "sgtin":
        description["gtin"] = key.key
    if product is not None:
        description["product"] = {k: product.get(k) for k in _PRODUCT_LABEL}
    if lot is not None:
        description["lot"] = {k: lot.get(k) for k in _LOT_LABEL}
    elif key.lot is not None:
        description["lot"] = {"lot_number": key.lot}
    return description
