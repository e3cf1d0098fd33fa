"""The composition root: builds the store, read models and use cases from the settings."""

import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from application.access import AccessService
from application.admin_guard import AdminGuard
from application.authentication import Authenticator, TokenLifetimes
from application.background import Background
from application.blocking import BlockingRunner
from application.bootstrap import AdminBootstrap, BootstrapCredentials
from application.capture import CaptureService
from application.catalogue import build_schema, record_collections
from application.code_pools import CodePools, parse_pools
from application.code_reservations import CodeReservations
from application.code_rules import (
    CodeRecords,
    CodeReservationRules,
    IdentifierJobRules,
    UniqueCodeRules,
)
from application.delivery import OutboundGuard
from application.errors import Unprocessable
from application.event_analysis import EventAnalyser
from application.event_queries import EventQueryService
from application.files import FilesRules, FilesService
from application.flow_control import FlowControl
from application.flow_rules import EpcisConnectionRules, OutboundFlowRules
from application.identifier_jobs import CodeSettings, IdentifierJobs
from application.items import CollectionRules, ItemsService, Origin
from application.master_data_rules import (
    LocationRules,
    ShipmentNoticeRules,
    StandardIdentifiers,
    identifier_schemes,
)
from application.named_queries import EpcisQueriesRules, NamedQueryService
from application.named_query_migration import migrate_named_queries
from application.outbound_flows import DeliverySettings, OutboundFlows
from application.outbox import Outbox
from application.page_tokens import PageTokens
from application.publish_lot import LotPublisher
from application.read_model_follower import ReadModelFollower
from application.resolver import Resolver
from application.subscriptions import SubscriptionService
from application.system_collections import (
    EXTRA_PERMISSION_COLLECTIONS,
    NotificationsRules,
    PermissionsRules,
    PoliciesRules,
    RolesRules,
    UsersRules,
)
from application.throttle import Throttle
from application.user_flows import FlowSettings, UserFlows, allow_list
from domain.access.outbound_targets import parse_allow_list
from domain.access.policies import SYSTEM
from domain.codes.integrity import DuplicateThresholds
from domain.codes.reserved import RESERVED_SEGMENTS
from domain.collections.coercion import format_datetime
from domain.collections.item_query import ItemQuery
from infrastructure.access_tokens import AccessTokens
from infrastructure.attempt_store import AttemptStore
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from infrastructure.epcis_schema import DocumentValidator
from infrastructure.event_store import EventStore
from infrastructure.file_storage import FileStorage
from infrastructure.http_push import HttpPush, resolve_host, resolve_host_now
from infrastructure.instance_store import InstanceStore
from infrastructure.mailer import FileMailer, Mailer, SmtpMailer
from infrastructure.passwords import set_hash_cost
from infrastructure.session_store import SessionStore
from infrastructure.settings import Settings
from projections.access_reader import AccessReader
from projections.capture_jobs import CaptureJobsProjection
from projections.code_reader import CodeReader
from projections.code_scans import CodeScansProjection
from projections.epcis_event_reader import EpcisEventReader
from projections.epcis_events import EpcisEventsProjection
from projections.history import HistoryProjection
from projections.item_queries import ItemReader
from projections.location_tree import LocationTree
from projections.readers import ReadModels
from projections.records import RecordsProjection
from projections.runner import ProjectionRunner
from projections.unique_codes import UniqueCodesProjection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    """The result of the health checks: `failing` names the checks that failed."""

    failing: dict[str, str]

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.failing


def _mailer(settings: Settings) -> Mailer:
    """SMTP when a host is set; else .eml files a newcomer can open."""
    if settings.email_smtp_host:
        password = settings.email_smtp_password
        return SmtpMailer(
            host=settings.email_smtp_host,
            port=settings.email_smtp_port,
            sender=settings.email_from,
            user=settings.email_smtp_user,
            password=password.get_secret_value() if password else None,
            secure=settings.email_smtp_secure,
        )
    return FileMailer(Path(settings.mail_dir), settings.email_from)


#: Collections whose tables other projections than the records' keep.
_OWN_PROJECTIONS = frozenset({"unique_code", "code_scan"})


def build_projection_runner(
    store: EventStore, database: Database, batch_size: int, multi_tenant: bool = False
) -> ProjectionRunner:
    """Every projection of the service, in one runner."""
    collections = record_collections(multi_tenant)
    by_name = {c.name: c for c in collections}
    projections = [
        EpcisEventsProjection(),
        CaptureJobsProjection(),
        # Codes and scans have projections of their own; the rest are records.
        RecordsProjection([c for c in collections if c.name not in _OWN_PROJECTIONS]),
        HistoryProjection(tuple(build_schema(multi_tenant))),
        UniqueCodesProjection(by_name["unique_code"]),
        CodeScansProjection(by_name["code_scan"]),
    ]
    # Before access control, a projection named "users" kept a narrower users table.
    # Named queries were a projection of their own before they became records.
    retired = {"users": ("users",), "named_queries": ("epcis_queries",)}
    return ProjectionRunner(store, database, projections, batch_size=batch_size, retired=retired)


class Tracepoint:
    """One running service: wiring plus start and stop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        set_hash_cost(settings.password_hash_time_cost, settings.password_hash_memory_kib)
        self.schema = build_schema(settings.multi_tenant)
        url = DatabaseUrl.parse(settings.database_url)
        self.database = Database(url, pool_size=settings.database_pool_size)
        # Processes starting together on one PostgreSQL would race to create the same
        # tables and types; they take turns instead.
        with self.database.exclusive("tracepoint-schema"):
            self.store = EventStore(url)
            self.projections = build_projection_runner(
                self.store, self.database, settings.projection_batch_size, settings.multi_tenant
            )
            self.projections.create_tables()
            self.instance = InstanceStore(self.database)
            self.sessions = SessionStore(self.database)
            attempts = AttemptStore(self.database)
        self.blocking = BlockingRunner(workers=settings.database_pool_size)
        secret = (
            settings.secret.get_secret_value()
            if settings.secret
            else self.instance.get_or_create("secret", secrets.token_urlsafe(48))
        )
        self.read_models = ReadModels(self.database)
        self.follower = ReadModelFollower(
            self.projections, self.blocking, settings.projection_poll_interval
        )
        self.analyser = EventAnalyser(settings.capture_workers)
        self.capture = CaptureService(
            self.store,
            DocumentValidator(),
            self.analyser,
            self.follower,
            self.projections,
            self.read_models,
            self.database,
            self.blocking,
            max_events=settings.capture_max_events,
            read_your_writes_timeout=settings.read_your_writes_timeout,
        )
        self.event_reader = EpcisEventReader(self.database)
        self.events = EventQueryService(
            self.event_reader,
            PageTokens(secret.encode()),
            self.blocking,
            per_page_default=settings.query_per_page_default,
            per_page_max=settings.query_per_page_max,
            locations=LocationTree(self.database),
        )
        self.outbox = Outbox(_mailer(settings))
        access_reader = AccessReader(self.database, multi_tenant=settings.multi_tenant)
        self._files_rules = FilesRules()
        self.background = Background()
        self.codes = CodeReader(self.database, multi_tenant=settings.multi_tenant)
        allowed = parse_allow_list(settings.outbound_allow_list)
        self.outbound_guard = OutboundGuard(allowed, resolve_host, resolve_host_now)
        self.items = ItemsService(
            self.store,
            ItemReader(self.database, self.schema),
            self.schema,
            self._collection_rules(access_reader),
            self.follower,
            self.blocking,
            read_your_writes_timeout=settings.read_your_writes_timeout,
            guard=AdminGuard(access_reader).check,
            bulk={"unique_code": CodeRecords(self.codes)},
        )
        self.files = FilesService(
            self.items,
            FileStorage(Path(settings.uploads_dir)),
            self._files_rules,
            self.blocking,
            max_upload_bytes=settings.max_upload_bytes,
        )
        self.identifier_jobs = IdentifierJobs(
            self.store,
            self.database,
            self.codes,
            self.projections,
            CodeSettings(
                link_base=self._link_base,
                chunk_size=settings.code_chunk_size,
                max_quantity=settings.code_job_max_quantity,
                reserved=RESERVED_SEGMENTS,
            ),
        )
        self.code_pools = CodePools(
            parse_pools(settings.code_pools, multi_tenant=settings.multi_tenant),
            self.store,
            self.database,
            self.codes,
            self.projections,
            max_quantity=settings.code_job_max_quantity,
        )
        self.code_reservations = CodeReservations(
            self.store,
            self.database,
            self.codes,
            self.projections,
            self.files,
            self.identifier_jobs,
            self.code_pools,
            self.blocking,
        )
        self.resolver = Resolver(
            self.store,
            self.codes,
            self.items,
            self.blocking,
            DuplicateThresholds(
                distance_km=settings.integrity_duplicate_km,
                window_seconds=settings.integrity_duplicate_window,
            ),
            self.follower,
            Throttle(attempts, self.blocking, "scan", settings.scans_per_minute),
            read_your_writes_timeout=settings.read_your_writes_timeout,
        )
        self.http = HttpPush(allowed)
        self.outbound_flows = OutboundFlows(
            self.store,
            self.database,
            self.event_reader,
            AccessService(access_reader, self.blocking),
            self.http,
            self.outbound_guard,
            self.blocking,
            DeliverySettings(batch_size=settings.flow_batch_size),
            self.events.with_sub_locations,
        )
        self.lots = LotPublisher(self.items, self.capture)
        self.flow_control = FlowControl(
            self.items, self.outbound_flows, lambda: self.blocking.run(self.projections.catch_up)
        )
        self.background.every("codes", settings.code_worker_interval, self.work_on_codes)
        self.background.every("flows", settings.flow_poll_interval, self.outbound_flows.run_due)
        if self.code_pools.pools:
            self.background.every("code-pools", settings.code_pool_interval, self.refill_pools)
        self.named_queries = NamedQueryService(
            self.items, self.read_models, self.events, self.blocking
        )
        self.subscriptions = SubscriptionService(
            self.store,
            self.database,
            self.event_reader,
            self.named_queries,
            AccessService(access_reader, self.blocking),
            self.http,
            self.outbound_guard,
            self.follower,
            self.blocking,
            DeliverySettings(batch_size=settings.flow_batch_size),
            self.events.with_sub_locations,
            self.schema["epcis_subscription"],
        )
        self.background.every(
            "subscriptions", settings.flow_poll_interval, self.subscriptions.deliver_due
        )
        self.password_checks = BlockingRunner(workers=2)
        tokens = AccessTokens(secret.encode())
        self.authenticator = Authenticator(
            AccessService(access_reader, self.blocking),
            self.sessions,
            tokens,
            self.blocking,
            TokenLifetimes(
                access=settings.access_token_ttl,
                refresh=settings.refresh_token_ttl,
                session=settings.session_cookie_ttl,
            ),
            throttle=Throttle(
                attempts,
                self.blocking,
                "login",
                settings.login_failures_per_minute,
                settings.login_attempts,
            ),
            passwords=self.password_checks,
            suspend=self._suspend,
            signed_in=self._signed_in,
        )
        self.user_flows = UserFlows(
            self.items,
            access_reader,
            tokens,
            self.outbox,
            FlowSettings(
                public_url=settings.public_url,
                register_urls=allow_list(settings.user_register_url_allow_list),
                invite_urls=allow_list(settings.user_invite_url_allow_list),
                reset_urls=allow_list(settings.password_reset_url_allow_list),
                public_registration=settings.public_registration,
                registration_role=settings.public_registration_role,
                verify_email=settings.public_registration_verify_email,
            ),
            self.blocking,
            Throttle(attempts, self.blocking, "mail", settings.mail_requests_per_minute),
        )
        self.bootstrap_credentials: BootstrapCredentials | None = None

    def _collection_rules(self, access_reader: AccessReader) -> dict[str, CollectionRules]:
        names = [c.name for c in self.schema] + list(EXTRA_PERMISSION_COLLECTIONS)
        return {
            "users": UsersRules(self.sessions, self.blocking),
            "roles": RolesRules(access_reader),
            "policies": PoliciesRules(),
            "permissions": PermissionsRules(lambda: names),
            "notifications": NotificationsRules(access_reader, self.blocking, self.outbox),
            "files": self._files_rules,
            "shipment_notice": ShipmentNoticeRules(),
            "epcis_queries": EpcisQueriesRules(),
            "identifier_job": IdentifierJobRules(
                self._link_base, self.settings.code_job_max_quantity, self._wake_code_work
            ),
            "code_reservation": CodeReservationRules(
                self.settings.code_job_max_quantity, self._wake_code_work
            ),
            "unique_code": UniqueCodeRules(),
            "epcis_connection": EpcisConnectionRules(self.outbound_guard),
            "epcis_outbound_flow": OutboundFlowRules(
                lambda micros: self.event_reader.position_before_record_time(micros),
                self._wake_flows,
            ),
            **self._identifier_rules(),
        }

    @property
    def _link_base(self) -> str:
        return self.settings.digital_link_base or self.settings.public_url

    def _wake_flows(self) -> None:
        self.outbound_flows.hurry()
        self.background.wake("flows")

    def _wake_code_work(self) -> None:
        self.background.wake("codes")

    async def work_on_codes(self) -> None:
        """Run the identifier jobs and serve the reservations that are waiting."""
        await self.blocking.run(self.identifier_jobs.run_waiting)
        await self.code_reservations.run_waiting()
        # What the work wrote is readable once it returns.
        await self.blocking.run(self.projections.catch_up)

    async def refill_pools(self) -> None:
        """Order codes for the pools that run low, and run them."""
        if await self.blocking.run(self.code_pools.refill):
            await self.work_on_codes()

    def _identifier_rules(self) -> dict[str, CollectionRules]:
        base = self._link_base
        schemes = identifier_schemes(self.settings.standard_identifiers)
        return {
            name: (LocationRules if name == "location" else StandardIdentifiers)(name, scheme, base)
            for name, scheme in schemes.items()
        }

    async def _signed_in(self, user_id: str, ip: str | None, user_agent: str | None) -> None:
        """Note when a user last signed in (`last_access`), and from where."""
        now = format_datetime(datetime.now(UTC))
        origin = Origin(user_id, ip, user_agent)
        await self.items.set_values("users", user_id, {"last_access": now}, origin=origin)

    async def _suspend(self, user_id: str) -> None:
        """Suspend an account that failed to sign in too often in a row."""
        try:
            await self.items.update(
                SYSTEM, "users", [user_id], {"status": "suspended"}, ItemQuery(fields=("id",))
            )
        except Unprocessable:
            # Guessing must not lock everybody out: the last administrator stays active
            # (the per-address limit still slows the guesser down).
            log.warning("not suspending %s, the last active administrator", user_id)

    @classmethod
    def from_environment(cls) -> "Tracepoint":
        """The service configured by the `TRACEPOINT_*` environment variables."""
        return cls(Settings())

    async def start(self) -> None:
        """Create the bootstrap admin if needed and start following the log."""
        self.bootstrap_credentials = await self.blocking.run(
            AdminBootstrap(self.store).ensure_admin,
            self.settings.admin_email,
            self.settings.admin_password.get_secret_value()
            if self.settings.admin_password
            else None,
            self.settings.admin_token.get_secret_value() if self.settings.admin_token else None,
        )
        await self.blocking.run(migrate_named_queries, self.store, self.instance)
        await self.follower.start()
        self.analyser.start()
        if self.settings.background_work:
            await self.background.start()

    async def stop(self) -> None:
        """Stop background work and close every connection."""
        self.identifier_jobs.stop()
        await self.background.stop()
        await self.http.close()
        await self.follower.stop()
        await self.outbox.flush()
        self.close()

    def close(self) -> None:
        """Close every connection (after `stop`, or when the service was never started)."""
        self.blocking.close()
        self.password_checks.close()
        self.analyser.close()
        self.store.close()
        self.database.close()

    async def health(self) -> Health:
        """Check that the database answers."""
        failing: dict[str, str] = {}
        try:
            await self.blocking.run(self.database.ping)
        except Exception as exc:  # any failure to answer is what the check reports
            failing["database"] = f"{type(exc).__name__}: {exc}".strip()
        try:
            await self.blocking.run(self.store.max_position)
        except Exception as exc:
            failing["event_store"] = f"{type(exc).__name__}: {exc}".strip()
        return Health(failing)
