"""What every capability is built on: the database, the event store, the projections and
the runners. The composition root makes it once; each capability's builder takes it."""

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from application.operations.monitoring import Metrics, NoMetrics
from application.operations.read_routing import ReadRouting
from application.service.background import Background
from application.service.blocking import BlockingRunner
from application.service.log_dictionaries import LogDictionaryTraining
from application.service.read_model_follower import ReadModelFollower
from domain.collections.schema import Schema
from infrastructure.attempt_store import AttemptStore
from infrastructure.database import Database
from infrastructure.event_store import EventStore
from infrastructure.instance_store import InstanceStore
from infrastructure.passwords import Passwords
from infrastructure.session_store import SessionStore
from infrastructure.settings import Settings
from infrastructure.sign_in_flows import SignInFlowStore
from projections.access.reader import AccessReader
from projections.runner import ProjectionRunner


@dataclass(frozen=True)
class Core:
    """The shared parts each capability's builder takes."""

    settings: Settings
    schema: Schema
    database: Database
    store: EventStore
    projections: ProjectionRunner
    instance: InstanceStore
    sessions: SessionStore
    attempts: AttemptStore
    #: Single sign-on flows waiting for their provider's callback.
    sign_in_flows: SignInFlowStore
    blocking: BlockingRunner
    follower: ReadModelFollower
    background: Background
    #: Trains the log's compression dictionaries as it grows.
    dictionaries: LogDictionaryTraining
    access_reader: AccessReader
    #: Password hashes at the cost the settings give.
    passwords: Passwords
    #: Signs page tokens and access tokens.
    secret: str
    #: Where read requests' queries go (replicas or the primary).
    reads: ReadRouting
    #: Where the use cases count captures, deliveries and codes.
    metrics: Metrics = field(default_factory=NoMetrics)
    #: Seconds since the epoch, as sign-in limits, locks and sessions read them (tests
    #: pass their own to move time on).
    clock: Callable[[], float] = time.time

    @property
    def link_base(self) -> str:
        """Where Digital Links of this installation start."""
        return self.settings.digital_link_base or self.settings.public_url
