"""The composition root: builds the store, read models and use cases from the settings."""

import logging
import secrets
from dataclasses import dataclass

from application.authentication import AdminBootstrap, Authenticator, BootstrapCredentials
from application.blocking import BlockingRunner
from application.capture import CaptureService
from application.event_analysis import EventAnalyser
from application.event_queries import EventQueryService
from application.named_queries import NamedQueryService
from application.page_tokens import PageTokens
from application.read_model_follower import ReadModelFollower
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from infrastructure.epcis_schema import DocumentValidator
from infrastructure.event_store import EventStore
from infrastructure.instance_store import InstanceStore
from infrastructure.settings import Settings
from projections.capture_jobs import CaptureJobsProjection
from projections.epcis_event_reader import EpcisEventReader
from projections.epcis_events import EpcisEventsProjection
from projections.named_queries import NamedQueriesProjection
from projections.readers import ReadModels
from projections.runner import ProjectionRunner
from projections.users import UsersProjection

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    """The result of the health checks: `failing` names the checks that failed."""

    failing: dict[str, str]

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return not self.failing


def build_projection_runner(
    store: EventStore, database: Database, batch_size: int
) -> ProjectionRunner:
    """Every projection of the service, in one runner."""
    projections = [
        EpcisEventsProjection(),
        CaptureJobsProjection(),
        NamedQueriesProjection(),
        UsersProjection(),
    ]
    return ProjectionRunner(store, database, projections, batch_size=batch_size)


class Tracepoint:
    """One running service: wiring plus start and stop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        url = DatabaseUrl.parse(settings.database_url)
        self.database = Database(url, pool_size=settings.database_pool_size)
        # Processes starting together on one PostgreSQL would race to create the same
        # tables and types; they take turns instead.
        with self.database.exclusive("tracepoint-schema"):
            self.store = EventStore(url)
            self.projections = build_projection_runner(
                self.store, self.database, settings.projection_batch_size
            )
            self.projections.create_tables()
            self.instance = InstanceStore(self.database)
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
        self.events = EventQueryService(
            EpcisEventReader(self.database),
            PageTokens(secret.encode()),
            self.blocking,
            per_page_default=settings.query_per_page_default,
            per_page_max=settings.query_per_page_max,
        )
        self.named_queries = NamedQueryService(
            self.store,
            self.read_models,
            self.events,
            self.follower,
            self.blocking,
            read_your_writes_timeout=settings.read_your_writes_timeout,
        )
        self.authenticator = Authenticator(self.read_models, self.blocking)
        self.bootstrap_credentials: BootstrapCredentials | None = None

    @classmethod
    def from_environment(cls) -> "Tracepoint":
        """The service configured by the `TRACEPOINT_*` environment variables."""
        return cls(Settings())

    async def start(self) -> None:
        """Create the bootstrap admin if needed and start following the log."""
        self.bootstrap_credentials = await self.blocking.run(
            AdminBootstrap(self.store, self.read_models, self.follower).ensure_admin,
            self.settings.admin_email,
            self.settings.admin_password.get_secret_value()
            if self.settings.admin_password
            else None,
            self.settings.admin_token.get_secret_value() if self.settings.admin_token else None,
        )
        await self.follower.start()
        self.analyser.start()

    async def stop(self) -> None:
        """Stop background work and close every connection."""
        await self.follower.stop()
        self.close()

    def close(self) -> None:
        """Close every connection (after `stop`, or when the service was never started)."""
        self.blocking.close()
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
