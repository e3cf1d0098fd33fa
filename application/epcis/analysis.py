"""Analysing captured events, on every core for large captures: their names and index terms.

Naming an event by its CBV 2.0 hash and finding its index terms are the largest share of
a capture's Python work (tens of µs per event each, mostly canonicalising EPCs, which
both need) and depend on nothing but the event. So large captures send them to worker
processes: a single capture uses both cores of a small machine, and the service
process's interpreter lock stays free for storing and projecting.
"""

import logging
import math
import multiprocessing
import os
import threading
from collections.abc import Collection, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

from application.epcis.collector_pause import collector_paused
from domain.epcis.derived_terms import DerivedTerms
from domain.epcis.earlier_hash import earlier_event_hash, may_mention_standard_prefix
from domain.epcis.event_hash import event_hash
from domain.epcis.event_identity import hash_mismatch
from domain.epcis.index_terms import event_terms
from domain.epcis.lineage_terms import event_lineage
from infrastructure.worker_processes import WorkerRecords, exit_with

log = logging.getLogger(__name__)

#: Fewer events than this are analysed in the service process: sending them to a worker
#: and back costs more than the work saves.
PARALLEL_FROM = 64

#: Most events one worker analyses in one go, so a 10,000-event capture is spread evenly
#: and the results come back in parts of bounded size.
CHUNK_LIMIT = 1000


@dataclass(frozen=True)
class Unnamed:
    """An event that has no event hash, and why."""

    reason: str


@dataclass(frozen=True)
class Misnamed:
    """An event whose own ID claims a CBV 2.0 hash its content does not have."""

    actual: str


class EventAnalysis(NamedTuple):
    """An event's ID (its own `eventID` or its hash) and its index terms and lineage rows.

    Where the terms cannot be found, `terms` is None and `problem` says why.
    """

    name: str | Unnamed | Misnamed
    terms: DerivedTerms | None
    problem: str | None = None
    #: For an event named by its hash: the hash it had before unbound standard prefixes
    #: were expanded, when that differs (`earlier_event_hash`); it may be stored so.
    earlier_name: str | None = None


def analyse_events(
    events: Sequence[Any],
    namespaces: dict[str, str],
    ignore_fields: Collection[str],
    *,
    earlier_names: bool = True,
) -> list[EventAnalysis]:
    """The analysis of each event, in order; `earlier_names=False` where none of the
    events can have an earlier hash (`may_mention_standard_prefix`)."""
    return [_analysed(event, namespaces, ignore_fields, earlier_names) for event in events]


def _analysed(
    event: Any, namespaces: dict[str, str], ignore_fields: Collection[str], earlier_names: bool
) -> EventAnalysis:
    # Whatever one event's data makes go wrong is that event's problem, reported to the
    # client as such; it must not fail the other events' chunk, or the request.
    name: str | Unnamed = event.get("eventID") or ""
    earlier: str | None = None
    try:
        if not isinstance(name, str) or not name:
            name = event_hash(event, namespaces, ignore_fields=ignore_fields)
            if earlier_names:
                earlier = earlier_event_hash(
                    event, namespaces, ignore_fields=ignore_fields, current=name
                )
        else:
            # A hash is a claim about the content: held to it, nobody can store forged
            # content under the ID of a real event that has not arrived yet.
            actual = hash_mismatch(name, event, namespaces, ignore_fields)
            if actual is not None:
                return EventAnalysis(Misnamed(actual), None)
    except Exception as exc:
        return EventAnalysis(Unnamed(str(exc) or type(exc).__name__), None)
    try:
        terms = event_terms(event, namespaces)
        derived = DerivedTerms(terms, event_lineage(event, terms))
    except Exception as exc:
        return EventAnalysis(name, None, str(exc) or type(exc).__name__)
    return EventAnalysis(name, derived, earlier_name=earlier)


def _analyse_encoded(
    encoded: bytes, namespaces: dict[str, str], ignore_fields: tuple[str, ...]
) -> list[EventAnalysis]:
    # Runs in a worker. JSON crosses the process boundary several times faster than a
    # pickled tree of dicts, and the worker decodes it while the service goes on. The
    # decoded events and their terms are thousands of new containers, freed by their
    # counts when the chunk is sent: the cyclic collector would walk them over and over
    # (a seventh of the work), as it would in the service process (`collector_paused`).
    # A chunk none of whose events spells a standard prefix spares each event the look.
    earlier_names = may_mention_standard_prefix(encoded)
    with collector_paused():
        return analyse_events(
            orjson.loads(encoded), namespaces, ignore_fields, earlier_names=earlier_names
        )


def _context() -> multiprocessing.context.BaseContext:
    # Not fork: the service process runs threads and holds database connections, neither
    # of which survives a fork. A fork server with this module loaded starts workers in
    # milliseconds; spawn, where there is none, imports everything in each worker.
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


class EventAnalyser:
    """Analyses events in the service process or, from `PARALLEL_FROM` events, in workers.

    The worker processes start with `start` (or the first large capture) and stop with
    `close`, or end by themselves when the service process ends without closing them.
    """

    def __init__(self, workers: int, records: WorkerRecords | None = None) -> None:
        self._workers = workers
        self._records = records
        self._recorded: list[int] = []
        self._recording = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def analyse(
        self, events: Sequence[Any], namespaces: dict[str, str], ignore_fields: Collection[str]
    ) -> list[EventAnalysis]:
        """The analysis of each event, in the order of `events`."""
        if self._workers < 1 or self._closed or len(events) < PARALLEL_FROM:
            return analyse_events(events, namespaces, ignore_fields)
        try:
            pool = self._started_pool()
        except RuntimeError:  # closed meanwhile
            return analyse_events(events, namespaces, ignore_fields)
        try:
            return self._in_workers(pool, events, namespaces, tuple(ignore_fields))
        except orjson.JSONEncodeError:
            # Only JSON goes to the workers; a document built in code may hold other values.
            return analyse_events(events, namespaces, ignore_fields)
        except (BrokenProcessPool, CancelledError, RuntimeError) as exc:
            # A worker that died (killed, out of memory) breaks the whole pool, and `close`
            # cancels what is queued; this capture still gets its analysis, and the next
            # large one a fresh pool.
            log.warning("event analysis workers failed (%r); working in the service process", exc)
            self._discard(pool)
            return analyse_events(events, namespaces, ignore_fields)

    def _in_workers(
        self,
        pool: ProcessPoolExecutor,
        events: Sequence[Any],
        namespaces: dict[str, str],
        ignore_fields: tuple[str, ...],
    ) -> list[EventAnalysis]:
        parts = max(self._workers, math.ceil(len(events) / CHUNK_LIMIT))
        size = math.ceil(len(events) / parts)
        futures: list[Future[list[EventAnalysis]]] = [
            pool.submit(
                _analyse_encoded, orjson.dumps(events[i : i + size]), namespaces, ignore_fields
            )
            for i in range(0, len(events), size)
        ]
        analyses: list[EventAnalysis] = []
        for future in futures:
            analyses.extend(future.result())
        self._record_workers()
        return analyses

    def _started_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the event analyser is closed")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self._workers,
                    mp_context=_context(),
                    initializer=exit_with,
                    initargs=(os.getpid(),),
                )
            return self._pool

    def start(self) -> None:
        """End the workers a crashed service left behind, then start this one's now, so
        the first large capture does not wait for them."""
        if self._workers < 1 or self._closed:
            return
        if self._records is not None:
            self._records.clean_up()
        pool = self._started_pool()
        for _ in range(self._workers):
            warm_up = pool.submit(analyse_events, [], {}, ())
            warm_up.add_done_callback(lambda _: self._record_workers())

    def _record_workers(self) -> None:
        # The pool starts workers as work comes and replaces a broken pool: note the
        # workers whenever they are not those noted last.
        if self._records is None:
            return
        with self._recording:
            pids = self.worker_pids()
            if pids != self._recorded:
                self._recorded = pids
                self._records.record(pids)

    def worker_pids(self) -> list[int]:
        """The process IDs of the running workers; empty until a large capture or `start`."""
        with self._lock:
            pool = self._pool
        # The executor keeps its processes by pid and offers no public view of them.
        processes = getattr(pool, "_processes", None) or {}
        return sorted(processes)

    def _discard(self, failed: ProcessPoolExecutor) -> None:
        # Only the pool that failed: another capture may have started a fresh one already.
        with self._lock:
            if self._pool is not failed:
                return
            self._pool = None
        failed.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes; later captures are analysed in the service process."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if self._records is not None:
            self._records.forget()
