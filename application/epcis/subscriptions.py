"""EPCIS 2.0 subscriptions: webhooks and WebSocket streams over named queries.

A subscription is a reader of the event log with a cursor, like an outbound flow: a
`stream` subscription delivers new matching events as they are captured, a scheduled one
what arrived since its last delivery whenever its cron schedule fires. Deliveries are
EPCISQueryDocuments POSTed to `dest`, signed in `GS1-Signature` (HMAC-SHA256 of the body
with the subscription's token, hex) when a token was given. The cursor moves only after
a 2xx; failures retry with backoff; a 4xx stops the subscription. EPCs are written in the
`GS1-EPC-Format` of the request that made the subscription (or opened the WebSocket); a
webhook made accepting XML is sent EPCIS 2.0 XML, CBV values in its `GS1-CBV-XML-Format`.
"""

import logging
import random
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.access.accountability import AccessService
from application.access.event_scope import EventScope, EventScopes
from application.epcis.delivery import (
    DeliverySettings,
    Expand,
    OutboundGuard,
    backoff_delay,
    in_one_delivery,
    log_reader_query,
)
from application.epcis.epc_formats import EpcFormatService
from application.epcis.named_queries import NamedQueryService
from application.epcis.subscription_records import (
    JSON,
    XML,
    delivery_cbv_xml_format,
    delivery_epc_format,
    subscription_body,
)
from application.epcis.subscription_schedules import cron_trigger, next_fire
from application.epcis.xml_documents import XmlDocuments
from application.operations.monitoring import Metrics, NoMetrics
from application.operations.service_records import change_record, live_record
from application.service.blocking import BlockingRunner, entered
from application.service.errors import Forbidden, NotFound, as_unavailable
from application.service.read_model_follower import ReadModelFollower
from domain.access.policies import Accountability
from domain.collections.coercion import format_datetime
from domain.collections.schema import Collection
from domain.epcis.cbv_format import CbvXmlFormat
from domain.epcis.epc_format import EpcFormat, applied_format
from domain.epcis.event_query import EventQuery, QueryParameterError
from domain.epcis.outbound import query_document
from domain.epcis.subscriptions import (
    SubscriptionControlsError,
    SubscriptionRequest,
    signature,
)
from domain.epcis.timestamps import format_record_time, parse_timestamp, to_micros
from domain.masterdata.outbound_flows import EPCIS_SUBSCRIPTION
from domain.records.record import Record
from infrastructure.database import Database
from infrastructure.event_store import DuplicateAggregate, EventStore
from infrastructure.http_push import HttpPush
from projections.epcis.event_reader import EpcisEventReader, PageRow
from projections.epcis.readers import SubscriptionReader

log = logging.getLogger(__name__)

#: Seconds between saves of a cursor moved past events a subscription does not select.
SKIP_SAVE_INTERVAL = 60.0

SUBSCRIPTIONS = EPCIS_SUBSCRIPTION.name


@dataclass(frozen=True)
class _Target:
    """What one delivery needs: the query, the subscriber's scope, where and how."""

    key: str
    name: str
    query: EventQuery
    scope: EventScope
    dest: str
    token: str | None
    report_if_empty: bool
    epc_format: EpcFormat
    xml: bool
    cbv_xml_format: CbvXmlFormat


class SubscriptionService:
    """Creates, lists and deletes subscriptions, and delivers to them."""

    def __init__(
        self,
        store: EventStore,
        database: Database,
        reader: EpcisEventReader,
        named_queries: NamedQueryService,
        access: AccessService,
        http: HttpPush,
        guard: OutboundGuard,
        follower: ReadModelFollower,
        blocking: BlockingRunner,
        settings: DeliverySettings,
        expand: Expand,
        collection: Collection,
        formats: EpcFormatService,
        *,
        scopes: EventScopes,
        xml: XmlDocuments,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        jitter: Callable[[], float] = random.random,
        metrics: Metrics | None = None,
    ) -> None:
        self._metrics = metrics or NoMetrics()
        self._store = store
        self._subscriptions = SubscriptionReader(database, collection)
        self._expand = expand
        self._formats = formats
        self._xml = xml
        self._scopes = scopes
        self._database = database
        self._reader = reader
        self._named = named_queries
        self._access = access
        self._http = http
        self._guard = guard
        self._follower = follower
        self._blocking = blocking
        self.settings = settings
        self._clock = clock
        self._jitter = jitter
        #: Subscription → when (time.monotonic) it may be tried again after failures.
        self._retry_at: dict[str, float] = {}
        self._failures: dict[str, int] = {}
        #: Scheduled subscription → its next fire time.
        self._fires: dict[str, datetime] = {}
        #: Stream subscription → the log position up to which nothing more matched.
        self._checked: dict[str, int] = {}
        #: Subscription → when (time.monotonic) a look that found nothing last saved its
        #: cursor past what its query does not select.
        self._skipped_at: dict[str, float] = {}

    # -- managing --------------------------------------------------------------------

    async def subscribe(
        self,
        caller: Accountability,
        name: str,
        request: SubscriptionRequest,
        epc_format: EpcFormat,
        *,
        xml: bool = False,
        cbv_xml_format: CbvXmlFormat = CbvXmlFormat.NO_PREFERENCE,
    ) -> dict[str, Any]:
        """A new webhook subscription to a named query the caller can see, delivering
        EPCs in `epc_format`, in XML (CBV values in `cbv_xml_format`) when `xml`; raises
        Forbidden, NotFound or SubscriptionControlsError."""
        await self._scopes.event_scope(caller, "read")
        await self._named.event_query(name, caller.accounts)
        if request.schedule is not None:
            cron_trigger(request.schedule)
        refused = await self._guard.refusal(request.dest)
        if refused is not None:
            raise SubscriptionControlsError(f"'dest' {refused}")
        if request.initial_record_time is not None:
            micros = to_micros(parse_timestamp(request.initial_record_time))
            cursor = await self._blocking.run(self._reader.position_before_record_time, micros)
            minimum = request.initial_record_time
        else:
            cursor = await self._blocking.run(self._reader.snapshot)
            minimum = format_record_time(self._clock())
        key = str(uuid.uuid4())
        at = format_datetime(self._clock())
        values: dict[str, Any] = {
            "id": key,
            "query_name": name,
            "dest": request.dest,
            "signature_token": request.signature_token,
            "report_if_empty": request.report_if_empty,
            "stream": request.stream,
            "schedule": request.schedule,
            "initial_record_time": request.initial_record_time,
            "epc_format": epc_format.value,
            "media_type": XML if xml else JSON,
            "cbv_xml_format": cbv_xml_format.value,
            "min_record_time": minimum,
            "last_position": cursor,
            "active": True,
            "status": "active",
            "user_created": caller.user,
            "date_created": at,
        }
        if caller.account is not None:
            values["account"] = caller.account
        record = Record(SUBSCRIPTIONS, key, values, caller.user, at)
        position = await self._blocking.run(self._store.save, record)
        await self._follower.wait_for(position, 10)
        return subscription_body(values)

    async def listed(self, caller: Accountability, name: str | None) -> list[dict[str, Any]]:
        """The caller's subscriptions (an administrator's: everybody's), of one query or
        of all."""
        rows = await self._blocking.run(self._rows, name)
        return [subscription_body(r) for r in rows if _visible(caller, r)]

    async def get(self, caller: Accountability, key: str) -> dict[str, Any]:
        """One subscription of the caller; NotFound otherwise."""
        record = await self._blocking.run(self._record, key)
        if record is None or not _visible(caller, record):
            raise NotFound(f"No subscription '{key}'")
        return subscription_body(record)

    async def unsubscribe(self, caller: Accountability, key: str) -> None:
        """Delete a subscription of the caller; NotFound otherwise."""
        await self.get(caller, key)
        await self._blocking.run(self._delete, key, caller.user)

    # -- delivering ------------------------------------------------------------------

    async def deliver_due(self) -> None:
        """Deliver to every active subscription that has something due."""
        now = self._clock()
        newest = await self._blocking.run(self._reader.snapshot)
        for row in await self._blocking.run(self._rows, None):
            key = str(row["id"])
            if not row.get("active") or self._retry_at.get(key, 0.0) > time.monotonic():
                continue
            try:
                await self._deliver_if_due(row, now, newest)
            except Exception as exc:  # one broken subscription must not hold up the others
                if as_unavailable(exc) is not None:
                    raise  # not the subscription's failure: the database's, for the timer
                log.exception("subscription %s failed", key)

    async def _deliver_if_due(self, row: dict[str, Any], now: datetime, newest: int) -> None:
        key = str(row["id"])
        if row.get("stream"):
            # Nothing captured since it last looked: nothing to look at.
            seen = max(int(row.get("last_position") or 0), self._checked.get(key, 0))
            if seen < newest:
                await self.deliver(key, report_if_empty=False)
            return
        if key in self._retry_at:
            # A scheduled delivery failed: it is tried again after its backoff, not at
            # the next fire time.
            await self.deliver(key, report_if_empty=bool(row.get("report_if_empty")))
            return
        fire = self._fires.get(key)
        if fire is None:
            fire = self._fires[key] = next_fire(row.get("schedule"), now)
        if fire <= now:
            self._fires[key] = next_fire(row.get("schedule"), now)
            await self.deliver(key, report_if_empty=bool(row.get("report_if_empty")))

    async def deliver(self, key: str, *, report_if_empty: bool) -> int:
        """Deliver what the subscription has not had yet; the events delivered."""
        lock = self._database.try_exclusive(f"subscription:{key}")
        async with entered(self._blocking, lock) as mine:
            if not mine:
                return 0
            target = await self._target(key)
            if target is None:
                return 0
            sent = 0
            for _ in range(self.settings.batches_per_run):
                cursor, rows, snapshot = await self._blocking.run(self._rows_after, key, target)
                if not rows:
                    self._checked[key] = snapshot
                    if not sent and not report_if_empty:  # (an empty report moves it)
                        await self._skip_past(key, cursor, snapshot)
                if not rows and (sent or not report_if_empty):
                    break
                if not await self._push(target, cursor, rows):
                    break
                sent += len(rows)
                if not rows:
                    break
            return sent

    async def stream(
        self,
        caller: Accountability,
        name: str,
        initial_record_time: str | None,
        epc_format: EpcFormat,
    ) -> AsyncGenerator[bytes, None]:
        """Each newly captured event the named query selects (and the caller may read),
        as an EPCISQueryDocument with its EPCs in `epc_format`, as soon as it is
        queryable: a WebSocket's feed."""
        scope = await self._scopes.event_scope(caller, "read")
        row = await self._named.get(name, caller.accounts)
        query = await log_reader_query(row.query, scope, self._expand)
        if initial_record_time is not None:
            micros = to_micros(parse_timestamp(initial_record_time))
            cursor = await self._blocking.run(self._reader.position_before_record_time, micros)
        else:
            cursor = await self._blocking.run(self._reader.snapshot)
        while True:
            rows = await self._blocking.run(self._page, query, cursor, scope)
            for page_row in rows:
                namespaces, events = in_one_delivery([page_row])
                events = await self._formats.events(events, epc_format)
                yield query_document(events, namespaces, self._now_record(), name)
                cursor = page_row.position
            if not rows:
                await self._follower.next_change(1.0)

    # -- the parts of a delivery ------------------------------------------------------

    async def _target(self, key: str) -> _Target | None:
        record = await self._blocking.run(self._record, key)
        if record is None or not record.get("active"):
            return None
        try:
            owner = record.get("user_created")
            caller = await self._access.of_user(owner) if owner else None
            if caller is None:
                raise _Stop("The subscriber no longer exists")
            scope = await self._scopes.event_scope(caller, "read")
            named = await self._named.get(str(record.get("query_name")), caller.accounts)
            query = await log_reader_query(named.query, scope, self._expand)
        except (_Stop, Forbidden, NotFound, QueryParameterError) as exc:
            message = getattr(exc, "message", None) or str(exc)
            await self._blocking.run(self._stop, key, f"The subscription cannot run: {message}")
            return None
        return _Target(
            key,
            str(record.get("query_name")),
            query,
            scope,
            str(record["dest"]),
            record.get("signature_token"),
            bool(record.get("report_if_empty")),
            delivery_epc_format(record.get("epc_format")),
            record.get("media_type") == XML,
            delivery_cbv_xml_format(record.get("cbv_xml_format")),
        )

    async def _push(self, target: _Target, cursor: int, rows: list[PageRow]) -> bool:
        """POST one document; True when the partner took it and the cursor moved."""
        refused = await self._guard.refusal(target.dest)
        if refused is not None:
            await self._blocking.run(self._stop, target.key, f"'dest' {refused}")
            return False
        body, headers = await self._document(target, rows)
        if target.token:
            headers["GS1-Signature"] = signature(target.token, body)
        result = await self._http.post(target.dest, body, headers, 30.0)
        if result.accepted:
            self._metrics.delivered("subscription", len(rows))
            self._failures.pop(target.key, None)
            self._retry_at.pop(target.key, None)
            last = rows[-1].position if rows else cursor
            await self._blocking.run(self._advance, target.key, cursor, last)
            return True
        if result.refused:
            await self._blocking.run(
                self._stop, target.key, f"'dest' refused a delivery with {result.status}"
            )
            self._metrics.delivery_failed("subscription", "stopped")
            return False
        self._metrics.delivery_failed("subscription", "retrying")
        failures = self._failures.get(target.key, 0) + 1
        self._failures[target.key] = failures
        delay = backoff_delay(
            failures, self.settings.retry_base, self.settings.retry_max, self._jitter()
        )
        self._retry_at[target.key] = time.monotonic() + delay
        error = result.error or f"'dest' answered {result.status}"
        await self._blocking.run(
            self._change, target.key, {"status": "retrying", "last_error": error}
        )
        return False

    async def _document(self, target: _Target, rows: list[PageRow]) -> tuple[bytes, dict[str, str]]:
        """One delivery's body and headers, in the subscription's formats."""
        namespaces, events = in_one_delivery(rows)
        events = await self._formats.events(events, target.epc_format)
        headers = {
            "Content-Type": JSON,
            "GS1-EPCIS-Version": "2.0.0",
            "GS1-EPC-Format": applied_format(target.epc_format).value,
        }
        created = self._now_record()
        if not target.xml:
            return query_document(events, namespaces, created, target.name, target.key), headers
        headers["Content-Type"] = XML
        headers["GS1-CBV-XML-Format"] = target.cbv_xml_format.value
        body = await self._xml.query_document(
            events, namespaces, created, target.name, target.key, target.cbv_xml_format
        )
        return body, headers

    def _rows_after(self, key: str, target: _Target) -> tuple[int, list[PageRow], int]:
        """The subscription's cursor, the next events after it, and the log position
        they were read up to."""
        record = self._record(key)
        cursor = int((record or {}).get("last_position") or 0)
        snapshot, rows = self._snapshot_and_page(target.query, cursor, target.scope)
        return cursor, rows, snapshot

    def _page(self, query: EventQuery, cursor: int, scope: EventScope) -> list[PageRow]:
        return self._snapshot_and_page(query, cursor, scope)[1]

    def _snapshot_and_page(
        self, query: EventQuery, cursor: int, scope: EventScope
    ) -> tuple[int, list[PageRow]]:
        return self._reader.snapshot_and_page(
            query, limit=self.settings.batch_size, after=(0, cursor), scope=scope
        )

    async def _skip_past(self, key: str, cursor: int, snapshot: int) -> None:
        """Save the cursor past events the query does not select, at most once a
        `SKIP_SAVE_INTERVAL`: so the stored cursor (and the lag /metrics reads from it)
        does not stay behind them, without a write at every look."""
        if snapshot <= cursor:
            return
        if self._skipped_at.get(key, 0.0) + SKIP_SAVE_INTERVAL > time.monotonic():
            return
        self._skipped_at[key] = time.monotonic()
        await self._blocking.run(self._move_cursor, key, cursor, snapshot)

    def _move_cursor(self, key: str, cursor: int, last: int) -> None:
        record = self._load(key)
        if record is not None and int(record.values.get("last_position") or 0) == cursor:
            self._change(key, {"last_position": last})

    def _advance(self, key: str, cursor: int, last: int) -> None:
        changes: dict[str, Any] = {
            "last_notified_at": format_datetime(self._clock()),
            "status": "active",
            "last_error": None,
        }
        record = self._load(key)
        # Moved meanwhile (deleted and made again): theirs stands.
        if record is not None and int(record.values.get("last_position") or 0) == cursor:
            changes["last_position"] = last
        self._change(key, changes)

    def _stop(self, key: str, error: str) -> None:
        log.warning("subscription %s stopped: %s", key, error)
        self._change(key, {"active": False, "status": "error", "last_error": error})

    def _change(self, key: str, changes: dict[str, Any]) -> None:
        change_record(self._store, SUBSCRIPTIONS, key, changes, format_datetime(self._clock()))

    def _delete(self, key: str, actor: str | None) -> None:
        for _ in range(10):
            record = self._load(key)
            if record is None:
                return
            record.delete(actor, format_datetime(self._clock()))
            try:
                self._store.save(record)
            except DuplicateAggregate:
                # A delivery moved it meanwhile.
                continue
            self._checked.pop(key, None)
            self._fires.pop(key, None)
            return

    def _load(self, key: str) -> Record | None:
        return live_record(self._store, SUBSCRIPTIONS, key)

    def _record(self, key: str) -> dict[str, Any] | None:
        record = self._load(key)
        return dict(record.values) if record is not None else None

    def _rows(self, name: str | None) -> list[dict[str, Any]]:
        """The subscriptions (of one query) as their table holds them: looked at every
        second, so read from the table, not rebuilt from their events."""
        return self._subscriptions.all(name)

    def _now_record(self) -> str:
        return format_record_time(self._clock())


class _Stop(Exception):
    """The subscription cannot run as it is."""


def _visible(caller: Accountability, record: dict[str, Any]) -> bool:
    if caller.admin:
        return caller.accounts is None or record.get("account") in caller.accounts
    return record.get("user_created") == caller.user
