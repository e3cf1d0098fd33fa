"""Identifier jobs: the background work that generates codes (spec §2 identifier_job).

A job writes its codes a chunk at a time. Each chunk and the job's new `quantity_created`
are saved in one transaction, under a chunk identity made of the job and the chunk's
offset, so a job that stops at any moment resumes where it stopped, and two processes
that run the same job cannot both write a chunk: no code twice, no gap.
"""

import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.operations.monitoring import Metrics, NoMetrics
from application.operations.service_records import live_record
from domain.codes.character_sets import alphabet
from domain.codes.chunk import CodeChunk
from domain.codes.plans import ENUMERABLE_SPACE, JobPlan, PlanError, plan_job, product_gtin
from domain.codes.random_codes import RandomBytes, random_codes, random_sample
from domain.collections.coercion import format_datetime
from domain.records.record import Record
from infrastructure.database import Database
from infrastructure.event_store import DuplicateAggregate, EventStore
from projections.codes.reader import CodeReader
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)

JOBS = "identifier_job"
#: Rounds of random draws before a nearly full code space is enumerated instead.
_DRAW_ROUNDS = 6


@dataclass(frozen=True)
class CodeSettings:
    """How codes are generated in this installation."""

    link_base: str
    chunk_size: int = 10_000
    max_quantity: int = 1_000_000
    #: Codes that must never be generated as short codes: the service's own top-level
    #: path segments, which a short-code URL would shadow.
    reserved: frozenset[str] = frozenset()


class IdentifierJobs:
    """Runs identifier jobs: plans each, then writes its codes chunk by chunk."""

    def __init__(
        self,
        store: EventStore,
        database: Database,
        codes: CodeReader,
        projections: ProjectionRunner,
        settings: CodeSettings,
        *,
        random_bytes: RandomBytes = secrets.token_bytes,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        metrics: Metrics | None = None,
    ) -> None:
        self._metrics = metrics or NoMetrics()
        self._store = store
        self._database = database
        self._codes = codes
        self._projections = projections
        self.settings = settings
        self._random_bytes = random_bytes
        self._clock = clock
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Let running jobs stop after their current chunk (they resume on the next run):
        a service shutting down does not wait for a million codes."""
        self._stopping.set()

    def plan(self, values: dict[str, Any]) -> JobPlan:
        """The plan of a job with these values; PlanError when it cannot be done."""
        return plan_job(
            values,
            self._gtin(values.get("product")),
            self.settings.link_base,
            self.settings.max_quantity,
        )

    def run_waiting(self) -> int:
        """Run every job that is new or was interrupted; return how many ran."""
        ran = 0
        # Jobs saved a moment ago (by a pool, another process) are in the read model.
        self._projections.catch_up()
        for key in self._codes.waiting(JOBS):
            if self._stopping.is_set():
                break
            ran += self.run(key)
        return ran

    def run(self, key: str) -> bool:
        """Run one job to its end, unless another worker runs it; True if this one did."""
        with self._database.try_exclusive(f"identifier-job:{key}") as mine:
            if not mine:
                return False
            self._run(key)
            return True

    def failure(self, key: str) -> str | None:
        """Why a job ended in error, or None when it did not."""
        job = live_record(self._store, JOBS, key)
        if job is None:
            return "the job was deleted"
        if job.values.get("status") != "error":
            return None
        return str(job.values.get("error_message") or "unknown error")

    def _run(self, key: str) -> None:
        plan: JobPlan | None = None
        while not self._stopping.is_set() and (job := self._load(key)) is not None:
            try:
                if plan is None:
                    plan = self._plan_or_fail(job)
                    if plan is None:
                        return
                if job.values.get("status") == "new":
                    self._save(job, {"status": "in_progress", "error_message": None})
                    continue
                done = int(job.values.get("quantity_created") or 0)
                if done >= plan.quantity:
                    self._save(job, {"status": "complete"})
                    return
                try:
                    self._write_chunk(job, plan, done)
                except PlanError as exc:
                    self._save(job, {"status": "error", "error_message": str(exc)})
                    return
            except DuplicateAggregate:
                # Another worker wrote this chunk or changed the job: carry on from what
                # is stored now.
                continue

    def _plan_or_fail(self, job: Record) -> JobPlan | None:
        """The job's plan, or None once the job is marked as failed because it cannot be
        done (checked before anything is generated)."""
        try:
            plan = self.plan(job.values)
            self._check_room(plan, int(job.values.get("quantity_created") or 0))
        except PlanError as exc:
            self._save(job, {"status": "error", "error_message": str(exc)})
            return None
        return plan

    def _write_chunk(self, job: Record, plan: JobPlan, offset: int) -> None:
        count = min(self.settings.chunk_size, plan.quantity - offset)
        # Two jobs drawing codes of one scope at once could draw the same code; they take
        # turns, and each sees the other's codes once the read models have them.
        with self._database.exclusive(f"codes:{plan.scope}"):
            self._projections.catch_up()
            if plan.sequential:
                codes = plan.ssccs(offset, count)
                # Another job's range may have reached these since the plan was checked.
                self._check_ssccs(plan, codes)
            else:
                codes = self._draw(plan, count)
            values = job.values
            created = offset + count
            at = self._now()
            chunk = CodeChunk(
                job=job.key,
                offset=offset,
                type=plan.type,
                scope=plan.scope,
                product=values.get("product"),
                gtin=plan.gtin,
                account=values.get("account"),
                codes=codes,
                link_head=plan.link_head,
                actor=values.get("user_created"),
                at=at,
            )
            changes: dict[str, Any] = {"quantity_created": created}
            if created >= plan.quantity:
                changes["status"] = "complete"
            job.update(changes, None, at)
            self._store.save(chunk, job)
        self._metrics.codes_created(count)

    def _draw(self, plan: JobPlan, count: int) -> list[str]:
        """`count` random codes that exist nowhere in the plan's scope yet."""
        chosen: dict[str, None] = {}
        for _ in range(_DRAW_ROUNDS):
            wanted = count - len(chosen)
            if wanted == 0:
                break
            # A few more than wanted, so one round usually suffices.
            drawn = random_codes(
                self._random_bytes,
                alphabet(plan.character_set),
                plan.length,
                wanted + wanted // 20 + 8,
            )
            candidates = [
                plan.prefix + c
                for c in dict.fromkeys(drawn)
                if c.lower() not in self._reserved(plan)
            ]
            candidates = [c for c in candidates if c not in chosen]
            taken = self._codes.taken(plan.scope, candidates)
            for code in candidates:
                if code not in taken:
                    chosen[code] = None
                    if len(chosen) == count:
                        break
        if len(chosen) < count:
            chosen.update(dict.fromkeys(self._enumerate(plan, count - len(chosen), chosen)))
        return list(chosen)

    def _enumerate(self, plan: JobPlan, count: int, chosen: dict[str, None]) -> list[str]:
        """Free codes of a nearly full space, found by listing it."""
        if plan.space > ENUMERABLE_SPACE:
            raise PlanError(
                f"Could not find {count:,} unused codes of {plan.length} {plan.character_set}"
                " characters; choose a longer length or a larger character set"
            )
        used = self._codes.codes_of_length(plan.scope, plan.code_length)
        reserved = self._reserved(plan)
        free = [
            c
            for c in plan.every_code()
            if c not in used and c not in chosen and c.lower() not in reserved
        ]
        if len(free) < count:
            raise PlanError(
                f"Only {len(free):,} unused codes of {plan.length} {plan.character_set}"
                f" characters are left in {_scope_name(plan)}; {count:,} more were needed"
            )
        return random_sample(self._random_bytes, free, count)

    def _check_ssccs(self, plan: JobPlan, codes: list[str]) -> None:
        taken = self._codes.count_between(plan.scope, codes[0], codes[-1])
        if taken:
            raise PlanError(
                f"{taken:,} SSCCs from {codes[0]} to {codes[-1]} were made by another job"
                " meanwhile; choose another sscc_start_serial"
            )

    def _check_room(self, plan: JobPlan, done: int) -> None:
        """Fail before generating anything when the codes cannot all be made."""
        needed = plan.quantity - done
        if needed <= 0:
            return
        if plan.sequential:
            low, high = plan.sscc_bounds(done)
            clash = self._codes.count_between(plan.scope, low, high)
            if clash:
                raise PlanError(
                    f"{clash:,} of the SSCCs from serial reference"
                    f" {plan.sscc_start_serial + done:,} on already exist; choose another"
                    " sscc_start_serial"
                )
            return
        used = self._codes.count_of_length(plan.scope, plan.code_length)
        left = plan.space - used
        if needed > left:
            raise PlanError(
                f"Only {max(left, 0):,} of the {plan.space:,} codes of {plan.length}"
                f" {plan.character_set} characters are left in {_scope_name(plan)};"
                f" {needed:,} were asked for. Choose a longer length or a larger character set"
            )

    def _reserved(self, plan: JobPlan) -> frozenset[str]:
        return self.settings.reserved if plan.type == "short_code" else frozenset()

    def _gtin(self, product: Any) -> str | None:
        if not product:
            return None
        record = live_record(self._store, "product", product)
        if record is None:
            raise PlanError(f'Product "{product}" does not exist')
        return product_gtin(record.values)

    def _load(self, key: str) -> Record | None:
        job = live_record(self._store, JOBS, key)
        if job is None or job.values.get("status") not in ("new", "in_progress"):
            return None
        return job

    def _save(self, job: Record, changes: dict[str, Any]) -> None:
        job.update(changes, None, self._now())
        self._store.save(job)

    def _now(self) -> str:
        return format_datetime(self._clock())


def _scope_name(plan: JobPlan) -> str:
    if plan.type == "sgtin":
        return f"GTIN {plan.gtin}"
    if plan.type == "grai":
        return f"GRAI {plan.prefix}"
    return "the short codes"
