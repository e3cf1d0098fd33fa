"""The composition root: builds the shared core and each capability from the settings,
and starts and stops them."""

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from application.access.bootstrap import (
    AdminBootstrap,
    BootstrapCredentials,
)
from application.access.first_credentials import FirstCredentials
from application.access.wiring import (
    AccessCapability,
    admin_guard,
    build_access,
)
from application.audit.wiring import AuditCapability, build_audit
from application.codes.wiring import CodesCapability, build_codes
from application.epcis.named_query_migration import migrate_named_queries
from application.epcis.wiring import EpcisCapability, build_epcis
from application.flows.wiring import FlowsCapability, build_flows
from application.items.catalogue import build_schema, record_collections
from application.items.rules import BulkItems, CollectionRules
from application.items.wiring import ItemsCapability, build_items
from application.operations.monitoring import Metrics, NoMetrics, StateReader
from application.operations.read_routing import ReadRouting
from application.service.background import Background
from application.service.blocking import BlockingRunner
from application.service.core import Core
from application.service.log_dictionaries import LogDictionaryTraining
from application.service.read_model_follower import ReadModelFollower
from infrastructure.attempt_store import AttemptStore
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import EventStore
from infrastructure.instance_store import InstanceStore
from infrastructure.metrics import PrometheusMetrics
from infrastructure.passwords import Passwords
from infrastructure.reference_data import REFERENCE_LISTS, reference_rows
from infrastructure.replicas import Replicas
from infrastructure.session_store import SessionStore
from infrastructure.settings import Settings
from infrastructure.sign_in_flows import SignInFlowStore
from infrastructure.write_positions import WritePositions
from projections.access.reader import AccessReader
from projections.codes.scans import CodeScansProjection
from projections.codes.unique_codes import UniqueCodesProjection
from projections.epcis.capture_jobs import CaptureJobsProjection
from projections.epcis.events import EpcisEventsProjection
from projections.epcis.lineage import LineageProjection
from projections.epcis.master_data import MasterDataProjection
from projections.items.history import HistoryProjection
from projections.items.records import RecordsProjection
from projections.items.references import ReferenceProjection
from projections.runner import SCHEMA_LOCK, ProjectionRunner


@dataclass(frozen=True)
class Health:
    """The result of the health checks: `failing` names the checks that failed."""

    failing: dict[str, str]

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.failing


log = logging.getLogger(__name__)

#: The background work that trains the log's compression dictionaries, and how often it
#: looks whether one is due (captures wake it sooner: `LogDictionaryTraining.noticed`).
DICTIONARY_WORK = "log-dictionary"
DICTIONARY_INTERVAL = 300.0
#: Collections whose tables other projections than the records' keep.
_OWN_PROJECTIONS = frozenset({"unique_code", "code_scan", *REFERENCE_LISTS})


def build_projection_runner(
    store: EventStore, database: Database, batch_size: int, multi_tenant: bool = False
) -> ProjectionRunner:
    """Every projection of the service, in one runner."""
    collections = record_collections(multi_tenant)
    by_name = {c.name: c for c in collections}
    projections = [
        EpcisEventsProjection(),
        LineageProjection(),
        CaptureJobsProjection(),
        MasterDataProjection(),
        # Codes, scans and reference lists have projections of their own; the rest are
        # records.
        RecordsProjection([c for c in collections if c.name not in _OWN_PROJECTIONS]),
        HistoryProjection(tuple(build_schema(multi_tenant))),
        UniqueCodesProjection(by_name["unique_code"]),
        CodeScansProjection(by_name["code_scan"]),
        ReferenceProjection([(by_name[n], reference_rows(by_name[n])) for n in REFERENCE_LISTS]),
    ]
    # Before access control, a projection named "users" kept a narrower users table.
    # Named queries were a projection of their own before they became records.
    retired = {"users": ("users",), "named_queries": ("epcis_queries",)}
    return ProjectionRunner(store, database, projections, batch_size=batch_size, retired=retired)


def _drop_broken_connections(database: Database, store: EventStore) -> None:
    """After a lost connection: replace every pooled connection that no longer works."""
    database.drop_broken_connections()
    store.drop_broken_connections()


def build_core(
    settings: Settings,
    metrics: Metrics | None = None,
    clock: Callable[[], float] = time.time,
) -> Core:
    """Open the database and the store, and make sure their tables exist."""
    url = DatabaseUrl.parse(settings.database_url)
    database = Database(url, pool_size=settings.database_pool_size)
    Replicas.attach(
        database,
        _replicas(url, settings.replica_urls),
        settings.database_pool_size,
        settings.database_replica_max_lag,
    )
    # Processes starting together on one PostgreSQL would race to create the same
    # tables and types; they take turns instead.
    with database.exclusive(SCHEMA_LOCK):
        store = EventStore(url, audit_tree=settings.audit_tree)
        projections = build_projection_runner(
            store, database, settings.projection_batch_size, settings.multi_tenant
        )
        projections.create_tables()
        instance = InstanceStore(database)
        sessions = SessionStore(database)
        attempts = AttemptStore(database)
        sign_in_flows = SignInFlowStore(database)
        positions = WritePositions(database) if database.replicas else None
    blocking = BlockingRunner(
        workers=settings.database_pool_size,
        drop_broken_connections=lambda: _drop_broken_connections(database, store),
    )
    secret = (
        settings.secret.get_secret_value()
        if settings.secret
        else instance.get_or_create("secret", secrets.token_urlsafe(48))
    )
    access_reader = AccessReader(database, multi_tenant=settings.multi_tenant)
    background = Background()
    dictionaries = LogDictionaryTraining(
        store, database, projections, blocking, lambda: background.wake(DICTIONARY_WORK)
    )
    background.every(DICTIONARY_WORK, DICTIONARY_INTERVAL, dictionaries.run)
    return Core(
        settings=settings,
        schema=build_schema(settings.multi_tenant),
        database=database,
        store=store,
        projections=projections,
        instance=instance,
        sessions=sessions,
        attempts=attempts,
        sign_in_flows=sign_in_flows,
        blocking=blocking,
        follower=ReadModelFollower(projections, blocking, settings.projection_poll_interval),
        background=background,
        dictionaries=dictionaries,
        access_reader=access_reader,
        passwords=Passwords(settings.password_hash_time_cost, settings.password_hash_memory_kib),
        secret=secret,
        reads=ReadRouting(positions, blocking, settings.database_replica_max_lag),
        metrics=metrics or NoMetrics(),
        clock=clock,
    )


def _replicas(primary: DatabaseUrl, urls: list[str]) -> list[DatabaseUrl]:
    """The replicas' URLs, parsed; only a PostgreSQL primary has replicas."""
    replicas = [DatabaseUrl.parse(u) for u in urls]
    if replicas and (
        primary.backend != "postgresql" or any(r.backend != "postgresql" for r in replicas)
    ):
        raise ValueError(
            "TRACEPOINT_DATABASE_REPLICA_URLS: replicas are PostgreSQL streaming replicas "
            "of a PostgreSQL TRACEPOINT_DATABASE_URL"
        )
    # A replica keeps the primary's tables in the same schema.
    return [replace(r, schema=primary.schema) for r in replicas]


class Tracepoint:
    """One running service: the shared core, the capabilities, start and stop."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        # What the use cases do (captures, deliveries, codes) is counted whether or not
        # /metrics is served: a counter costs about a microsecond. Requests are counted
        # only when it is served (api/service/app.py installs `request_metrics` then).
        # A registry of this instance's own: tests run many services in one process.
        self.metrics = PrometheusMetrics()
        self.core = core = build_core(settings, self.metrics, clock)
        self.database = core.database
        self.store = core.store
        self.projections = core.projections
        self.blocking = core.blocking
        self.follower = core.follower
        self.state = StateReader(core.projections, core.database)
        # Each capability adds the rules of its collections (and codes its bulk storage);
        # the items service reads both registries at each call.
        rules: dict[str, CollectionRules] = {}
        bulk: dict[str, BulkItems] = {}
        self.items: ItemsCapability = build_items(core, rules, bulk, admin_guard(core).check)
        self.epcis: EpcisCapability = build_epcis(core, self.items.service)
        self.access: AccessCapability = build_access(core, self.items.service, self.epcis.scopes)
        self.codes: CodesCapability = build_codes(core, self.items.service, self.items.files)
        self.flows: FlowsCapability = build_flows(core, self.items.service, self.epcis)
        self.audit: AuditCapability = build_audit(core, self.epcis)
        for capability in (self.items, self.epcis, self.access, self.codes, self.flows):
            rules.update(capability.rules)
        bulk.update(self.codes.bulk)
        self.bootstrap_credentials: BootstrapCredentials | None = None
        self.first_credentials = FirstCredentials(settings)
        #: Why the generated credentials could not be kept in their file, if they could not.
        self.first_credentials_error: str | None = None

    @classmethod
    def from_environment(cls) -> "Tracepoint":
        """The service configured by the `TRACEPOINT_*` environment variables."""
        return cls(Settings())

    async def start(self) -> None:
        """Create the bootstrap admin if needed and start following the log."""
        settings = self.settings
        self.bootstrap_credentials = await self.blocking.run(
            AdminBootstrap(self.store, self.core.passwords).ensure_admin,
            settings.admin_email,
            settings.admin_password.get_secret_value() if settings.admin_password else None,
            settings.admin_token.get_secret_value() if settings.admin_token else None,
        )
        if self.bootstrap_credentials is not None and self.bootstrap_credentials.generated:
            # Kept at once: whatever happens to this start, the next one can point at them.
            self.first_credentials_error = self.first_credentials.keep(self.bootstrap_credentials)
        await self.blocking.run(migrate_named_queries, self.store, self.core.instance)
        if settings.audit_tree:
            await self.blocking.run(self.audit.upkeep.seal)
        await self.follower.start()  # caught up: what other processes wrote is readable
        if self.bootstrap_credentials is None:
            await self.blocking.run(self._discard_used_credentials)
        self.epcis.analyser.start()
        if settings.background_work:
            await self.core.background.start()

    def _discard_used_credentials(self) -> None:
        passwords, reader = self.core.passwords, self.core.access_reader
        if self.first_credentials.discard_if_used(reader, passwords):
            log.info(
                "deleted %s: the bootstrap admin has signed in or changed its password",
                self.first_credentials.path,
            )

    async def stop(self) -> None:
        """Stop background work and close every connection."""
        self.codes.jobs.stop()
        await self.core.background.stop()
        await self.epcis.http.close()
        await self.follower.stop()
        await self.access.outbox.flush()
        self.close()

    def close(self) -> None:
        """Close every connection (after `stop`, or when the service was never started)."""
        self.blocking.close()
        self.access.password_checks.close()
        self.epcis.analyser.close()
        self.store.close()
        self.database.close()

    async def health(self) -> Health:
        """Check that the database and the event store answer (together: in an outage
        each waits out its pool's timeout)."""
        checks = {"database": self.database.ping, "event_store": self.store.max_position}
        results = await asyncio.gather(
            *(self.blocking.run(check) for check in checks.values()), return_exceptions=True
        )
        failing = {
            name: f"{type(result).__name__}: {result}".strip()
            for name, result in zip(checks, results, strict=True)
            if isinstance(result, Exception)  # any failure to answer is what is reported
        }
        return Health(failing)
