"""Capture: validate an EPCIS document, name its events, store the new ones atomically."""

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from application.access.event_scope import reads_by_rule
from application.epcis.analysis import EventAnalyser, EventAnalysis, Misnamed, Unnamed
from application.epcis.capture_outcomes import (
    CaptureLimitExceeded,
    CaptureOutcome,
    Capturer,
    EventIdConflict,
    InvalidDocument,
)
from application.epcis.captured_identities import CapturedIdentities
from application.epcis.collector_pause import collector_paused
from application.epcis.earlier_identities import EarlierIdentities
from application.operations.monitoring import Metrics, NoMetrics
from application.service.blocking import BlockingRunner
from application.service.read_model_follower import ReadModelFollower
from domain.access.policies import Accountability
from domain.epcis.capture_job import CaptureJob, ErrorBehaviour
from domain.epcis.captured_event import CapturedEvent
from domain.epcis.captured_master_data import CapturedMasterData
from domain.epcis.derived_terms import DerivedTerms
from domain.epcis.event_hash import document_context, document_ignore_fields
from domain.epcis.event_identity import Admission, Journal, Record
from domain.epcis.storable import (
    encoded_within,
    event_id_violations,
    nesting_violation,
    nul_violations,
)
from domain.epcis.timestamps import InvalidTimestamp, format_record_time, timestamp_micros
from domain.epcis.violations import Violation, event_index
from domain.epcis.xml_paths import XmlPlaces
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.epcis_schema import DocumentValidator
from infrastructure.event_store import DuplicateAggregate, EventStore, LoggedEvent
from projections.epcis.readers import CaptureJobRow as CaptureJobRow
from projections.epcis.readers import ReadModels
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)


@dataclass
class _Prepared:
    positions: list[int]
    event_ids: list[str]
    events: list[dict[str, Any]]
    terms: list[DerivedTerms]
    namespaces: dict[str, str]
    received: int
    rejected: list[Violation]
    #: `epcisHeader.epcisMasterData.vocabularyList`, kept as sent.
    vocabulary_list: list[dict[str, Any]] = field(default_factory=list)
    #: Where an XML document's parts were: violations name its element paths.
    places: XmlPlaces | None = None
    #: Position in `event_ids` → the hash that event had before unbound standard prefixes
    #: were expanded, for events named by a hash that differs so.
    earlier_names: dict[int, str] = field(default_factory=dict)

    def located(self, violations: list[Violation]) -> list[Violation]:
        """The violations as the sent document names its places."""
        return violations if self.places is None else self.places.relocated(violations)


def _storable(
    index: int, event: dict[str, Any], analysis: EventAnalysis
) -> tuple[str, DerivedTerms] | Violation:
    """A valid event's ID and index terms, or why it still cannot be stored and indexed."""
    where = f"epcisBody.eventList.{index}"
    if isinstance(analysis.name, Unnamed):
        return Violation(where, f"Cannot compute the event hash: {analysis.name.reason}")
    if isinstance(analysis.name, Misnamed):
        return Violation(
            f"{where}.eventID",
            "The eventID is not the CBV 2.0 hash of the event's content, which is "
            + analysis.name.actual,
        )
    if analysis.terms is not None:
        return analysis.name, analysis.terms
    # The projector must be able to index every stored event. The usual reason it cannot
    # is a time the schema lets through but we cannot place on the time line.
    try:
        timestamp_micros(event["eventTime"])
    except (InvalidTimestamp, KeyError, TypeError) as exc:
        return Violation(f"{where}.eventTime", str(exc))
    return Violation(where, f"Cannot index the event: {analysis.problem}")


@dataclass(frozen=True)
class _Batch:
    """One try at storing a prepared document: its events' identities and what is stored."""

    identities: list[str]
    stored: dict[str, list[Record]]
    capture_id: str
    created_at: datetime


@dataclass
class _Admitted:
    new: list[tuple[int, int]] = field(default_factory=list)  # (prepared index, version)
    present: int = 0
    conflicts: list[Violation] = field(default_factory=list)


def _admit(prepared: _Prepared, batch: _Batch) -> _Admitted:
    """Which prepared events are new records (and at what version), already present, or
    conflicts with what their event ID names already, in document order."""
    journals: dict[str, Journal] = {}
    admitted = _Admitted()
    for i, identity in enumerate(batch.identities):
        journal = journals.get(identity)
        if journal is None:
            journal = journals[identity] = Journal(list(batch.stored.get(identity, ())))
        version = journal.next_version
        admission = journal.admit(Record(prepared.events[i], prepared.namespaces))
        if admission is Admission.NEW:
            admitted.new.append((i, version))
        elif admission is Admission.PRESENT:
            admitted.present += 1
        else:
            admitted.conflicts.append(
                Violation(
                    f"epcisBody.eventList.{prepared.positions[i]}.eventID",
                    f"The event ID {prepared.event_ids[i]} already names an event with"
                    " other content (ResourceAlreadyExistsException)",
                )
            )
    return admitted


def _vocabulary_list(document: Any) -> list[dict[str, Any]]:
    header = document.get("epcisHeader") if isinstance(document, dict) else None
    master = header.get("epcisMasterData") if isinstance(header, dict) else None
    vocabularies = master.get("vocabularyList") if isinstance(master, dict) else None
    return list(vocabularies) if isinstance(vocabularies, list) else []


def _document_order(violation: Violation) -> tuple[int, str]:
    index = event_index(violation)
    return (-1 if index is None else index, violation.location)


class CaptureService:
    """The capture use case: one document in, one atomic write to the event store."""

    def __init__(
        self,
        store: EventStore,
        validator: DocumentValidator,
        analyser: EventAnalyser,
        follower: ReadModelFollower,
        projections: ProjectionRunner,
        read_models: ReadModels,
        database: Database,
        blocking: BlockingRunner,
        identities: CapturedIdentities,
        *,
        max_events: int,
        read_your_writes_timeout: float,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        metrics: Metrics | None = None,
        stored: Callable[[int], None] = lambda position: None,
    ) -> None:
        """`stored` is told the log position each capture reached."""
        self._metrics = metrics or NoMetrics()
        self._stored = stored
        self._store = store
        self._validator = validator
        self._analyser = analyser
        self._follower = follower
        self._projections = projections
        self._read_models = read_models
        self._identities = identities
        self._earlier = EarlierIdentities(store, read_models, identities)
        self._database = database
        self._write_turn = threading.Lock()
        self._last_record_time = datetime.min.replace(tzinfo=UTC)
        self._blocking = blocking
        self.max_events = max_events
        self._timeout = read_your_writes_timeout
        self._clock = clock

    def check_limit(self, document: Any) -> None:
        """Refuse a document with more events than the limit, before any other work."""
        body = document.get("epcisBody") if isinstance(document, dict) else None
        events = body.get("eventList") if isinstance(body, dict) else None
        if isinstance(events, list) and len(events) > self.max_events:
            raise CaptureLimitExceeded(
                f"The document has {len(events)} events; this repository captures at most "
                f"{self.max_events} events per request"
            )

    def validate(self, document: Any) -> list[Violation]:
        """Every violation of the schema, the CBV rules and what storing needs ([] if valid)."""
        encoded = encoded_within(document)
        if encoded is None:
            too_deep = nesting_violation(document)
            if too_deep is not None:
                return [too_deep]
            encoded = orjson.dumps(document)  # raises what kept it from being encoded
        violations = self._validator.validate_capture(document)
        violations.extend(event_id_violations(document))
        # Serialising is a fast way to learn whether any text holds a NUL at all; only
        # then is the document walked for the exact places.
        if b"\\u0000" in encoded:
            violations.extend(nul_violations(document))
        return violations

    async def validate_async(self, document: Any) -> list[Violation]:
        """Every reason capture would refuse the document or one of its events, short of
        what is stored already (a conflict of event IDs), off the event loop."""
        self.check_limit(document)
        return await self._blocking.run(self._refusals, document)

    def _refusals(self, document: Any) -> list[Violation]:
        # Naming and indexing the events finds what the schema cannot: an eventID that
        # claims a hash its event does not have, a time that cannot be placed.
        try:
            return sorted(self._prepare(document, "proceed").rejected, key=_document_order)
        except InvalidDocument as exc:
            return exc.violations

    async def capture(
        self,
        document: Any,
        error_behaviour: ErrorBehaviour,
        captured_by: str | None,
        account: str | None = None,
        places: XmlPlaces | None = None,
    ) -> CaptureOutcome:
        """Store a document's new events; wait until queries see them.

        With `rollback` any violation rejects the whole document; with `proceed` the valid
        events are stored and the invalid ones reported in the capture job. The job's
        errors and the conflicts of event IDs name an XML document's element paths
        (`places`); an InvalidDocument keeps JSON locations for the caller to relocate.
        """
        self.check_limit(document)
        outcome, position = await self._blocking.run(
            self._capture, document, error_behaviour, Capturer(captured_by, account), places
        )
        self._metrics.captured(
            outcome.events_stored + outcome.declarations_stored,
            outcome.events_already_present,
            outcome.events_rejected,
        )
        self._stored(position)
        if not await self._follower.wait_for(position, self._timeout):
            log.warning("capture %s stored but not yet queryable", outcome.capture_id)
            outcome.visible = False
        return outcome

    def _prepare(self, document: Any, error_behaviour: ErrorBehaviour) -> _Prepared:
        violations = self.validate(document)
        if violations and (
            error_behaviour == "rollback" or any(event_index(v) is None for v in violations)
        ):
            raise InvalidDocument(violations)
        events: list[dict[str, Any]] = document["epcisBody"]["eventList"]
        invalid = {event_index(v) for v in violations}
        namespaces = document_context(document)
        ignore_fields = document_ignore_fields(document)
        prepared = _Prepared([], [], [], [], namespaces, len(events), list(violations))
        prepared.vocabulary_list = _vocabulary_list(document)
        valid = [index for index in range(len(events)) if index not in invalid]
        analyses = self._analyser.analyse([events[i] for i in valid], namespaces, ignore_fields)
        for index, analysis in zip(valid, analyses, strict=True):
            storable = _storable(index, events[index], analysis)
            if isinstance(storable, Violation):
                if error_behaviour == "rollback":
                    raise InvalidDocument([storable])
                prepared.rejected.append(storable)
                continue
            prepared.positions.append(index)
            if analysis.earlier_name is not None:
                prepared.earlier_names[len(prepared.event_ids)] = analysis.earlier_name
            prepared.event_ids.append(storable[0])
            prepared.events.append(events[index])
            prepared.terms.append(storable[1])
        return prepared

    def _capture(
        self,
        document: Any,
        error_behaviour: ErrorBehaviour,
        captured_by: Capturer,
        places: XmlPlaces | None,
    ) -> tuple[CaptureOutcome, int]:
        with collector_paused():
            return self._capture_document(document, error_behaviour, captured_by, places)

    def _capture_document(
        self,
        document: Any,
        error_behaviour: ErrorBehaviour,
        captured_by: Capturer,
        places: XmlPlaces | None,
    ) -> tuple[CaptureOutcome, int]:
        prepared = self._prepare(document, error_behaviour)
        prepared.places = places
        capture_id = str(uuid.uuid4())
        created_at = self._clock()
        identities = [
            self._identities.of(event_id, captured_by.account) for event_id in prepared.event_ids
        ]
        if prepared.earlier_names:
            self._earlier.keep_names(
                prepared.earlier_names, prepared.event_ids, identities, captured_by.account
            )
        if captured_by.account is not None:
            self._earlier.keep_identities(prepared.event_ids, identities, captured_by.account)
        # Most captures bring only new events, so the first try does not look for stored
        # ones: the store refuses the whole batch if any is there, and we look then. A
        # concurrent capture may store some of the same events between our look-up and
        # our save; each retry finds at least one more record stored, so this ends.
        # A declaration mostly follows its event, so then we look first.
        stored: dict[str, list[Record]] = {}
        if any("errorDeclaration" in event for event in prepared.events):
            stored = self._stored_records(identities)
        for _ in range(len(identities) + 2):
            try:
                return self._save(
                    prepared,
                    _Batch(identities, stored, capture_id, created_at),
                    error_behaviour,
                    captured_by,
                )
            except DuplicateAggregate:
                stored = self._stored_records(identities)
        raise AssertionError("a capture kept colliding with itself")

    def _stored_records(self, identities: list[str]) -> dict[str, list[Record]]:
        return {
            identity: [Record(e.epcis_event, e.namespaces) for e in events]  # type: ignore[attr-defined]
            for identity, events in self._store.events_of_many(identities).items()
        }

    def _save(
        self,
        prepared: _Prepared,
        batch: "_Batch",
        error_behaviour: ErrorBehaviour,
        captured_by: Capturer,
    ) -> tuple[CaptureOutcome, int]:
        # One transaction holds the log's write lock, the new entries and their query
        # rows: the events are stored and queryable together, or not at all. Record
        # times are stamped under the lock, across processes too, so they grow with the
        # log: a client polling GE_recordTime never misses a capture that committed
        # after one it has seen.
        with self._write_turn:
            # Pipelined: a one-event capture waits for 3 answers where it waited for 13,
            # and larger ones send their query rows as arrays (`insert_many`), which
            # measured as fast as COPY from 1,000 events on and faster below.
            with self._database.transaction(pipelined=True) as conn:
                self._store.lock_within(conn)
                saved, outcome = self._stamp_and_store(
                    conn, prepared, batch, error_behaviour, captured_by
                )
                # The events directly follow what is projected already (unless another
                # process wrote meanwhile; then the follower projects them).
                projected = self._projections.apply_within(conn, saved)
            if projected:
                self._projections.applied(saved)
        return outcome, saved[-1].position

    def _stamp_and_store(
        self,
        conn: Connection,
        prepared: _Prepared,
        batch: "_Batch",
        error_behaviour: ErrorBehaviour,
        captured_by: Capturer,
    ) -> tuple[list[LoggedEvent], CaptureOutcome]:
        self._last_record_time = max(self._last_record_time, self._clock())
        record_time = format_record_time(self._last_record_time)
        admitted = _admit(prepared, batch)
        if admitted.conflicts and error_behaviour == "rollback":
            raise EventIdConflict(prepared.located(admitted.conflicts))
        captured = [
            CapturedEvent.captured(
                event_id=prepared.event_ids[i],
                epcis_event=prepared.events[i],
                namespaces=prepared.namespaces,
                record_time=record_time,
                capture_id=batch.capture_id,
                aggregate_id=batch.identities[i],
                version=version,
            )
            for i, version in admitted.new
        ]
        terms = {(batch.identities[i], version): prepared.terms[i] for i, version in admitted.new}
        declarations = sum(1 for i, _ in admitted.new if "errorDeclaration" in prepared.events[i])
        outcome = CaptureOutcome(
            capture_id=batch.capture_id,
            events_received=prepared.received,
            events_stored=len(captured) - declarations,
            events_already_present=admitted.present,
            events_rejected=prepared.received - len(prepared.event_ids) + len(admitted.conflicts),
            errors=prepared.located(
                sorted([*prepared.rejected, *admitted.conflicts], key=_document_order)
            ),
            declarations_stored=declarations,
            event_ids=list(prepared.event_ids),
        )
        job = CaptureJob(
            capture_id=batch.capture_id,
            error_behaviour=error_behaviour,
            created_at=format_record_time(batch.created_at),
            finished_at=format_record_time(self._clock()),
            events_received=outcome.events_received,
            events_stored=outcome.events_stored,
            events_already_present=outcome.events_already_present,
            events_rejected=outcome.events_rejected,
            errors=[{"location": v.location, "reason": v.reason} for v in outcome.errors],
            captured_by=captured_by.user,
            account=captured_by.account,
            declarations_stored=declarations,
        )
        master_data = []
        if prepared.vocabulary_list:
            master_data.append(
                CapturedMasterData.captured(
                    batch.capture_id,
                    prepared.vocabulary_list,
                    prepared.namespaces,
                    record_time,
                    captured_by.account,
                )
            )
            outcome.master_data_elements = sum(
                len(v.get("vocabularyElementList") or ()) for v in prepared.vocabulary_list
            )
        return self._store.append_within(conn, job, *captured, *master_data, derived=terms), outcome

    async def job(self, capture_id: str, caller: Accountability) -> CaptureJobRow | None:
        """The capture job with this ID, or None when there is none the caller may read:
        of its accounts, and its own when a rule limits the events it reads."""
        job = await self._blocking.run(self._read_models.capture_job, capture_id)
        if job is None or (caller.accounts is not None and job.account not in caller.accounts):
            return None
        if reads_by_rule(caller) and (caller.user is None or job.captured_by != caller.user):
            return None
        return job

    async def jobs(self, limit: int, caller: Accountability) -> list[CaptureJobRow]:
        """The newest capture jobs the caller may read (see `job`)."""
        own_only = reads_by_rule(caller)
        if own_only and caller.user is None:
            return []
        return await self._blocking.run(
            self._read_models.capture_jobs,
            limit,
            None,
            caller.accounts,
            caller.user if own_only else None,
        )
