"""Code reservations: the background work that hands unassigned codes to a partner and
writes their export file (spec §2 code_reservation).

Codes are taken in one transaction with the reservation's `quantity_reserved`: events on
the chunks that hold them, so the store's version check on each chunk keeps two
reservations from taking the same code. The export file is written after, from the codes
the reservation holds, and the reservation completes when it is linked.
"""

import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from application.codes.jobs import IdentifierJobs
from application.codes.pools import CodePools
from application.items.files import FilesService
from application.operations.service_records import change_record, live_record
from application.service.blocking import BlockingRunner, entered
from domain.codes.chunk import CodeChunk
from domain.codes.exports import EXPORT_TYPES, export_codes, extension, media_type
from domain.collections.coercion import format_datetime
from domain.records.record import Record
from infrastructure.database import Database
from infrastructure.event_store import DuplicateAggregate, EventStore
from projections.codes.reader import CodeReader
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)

RESERVATIONS = "code_reservation"
#: Attempts at taking codes when another reservation took some of them first.
_ATTEMPTS = 20


@dataclass(frozen=True)
class _Step:
    """What the reservation needs next."""

    #: "export" (codes taken), "wait" (codes on order), "done" (nothing to do).
    next: str
    reservation: Record | None = None


class CodeReservations:
    """Serves reservations that are new or were interrupted."""

    def __init__(
        self,
        store: EventStore,
        database: Database,
        codes: CodeReader,
        projections: ProjectionRunner,
        files: FilesService,
        jobs: IdentifierJobs,
        pools: CodePools,
        blocking: BlockingRunner,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._database = database
        self._codes = codes
        self._projections = projections
        self._files = files
        self._jobs = jobs
        self._pools = pools
        self._blocking = blocking
        self._clock = clock

    async def run_waiting(self) -> int:
        """Serve every waiting reservation; return how many this worker served."""
        served = 0
        await self._blocking.run(self._projections.catch_up)
        for key in await self._blocking.run(self._codes.waiting, RESERVATIONS):
            served += await self.run(key)
        return served

    async def run(self, key: str) -> bool:
        """Serve one reservation unless another worker does; True if this one did."""
        lock = self._database.try_exclusive(f"code-reservation:{key}")
        async with entered(self._blocking, lock) as mine:
            if not mine:
                return False
            step = await self._blocking.run(self._take, key)
            if step.next == "export" and step.reservation is not None:
                await self._export(step.reservation)
            return True

    def _take(self, key: str) -> _Step:
        """Take the reservation's codes, ordering them from a pool where it lacks them."""
        reservation = self._load(key)
        export_type = (reservation.values.get("export_type") or "csv") if reservation else None
        if export_type is not None and export_type not in EXPORT_TYPES:
            # Checked before any code is taken: the codes would be held for a file that
            # is never written.
            self._fail(
                key,
                f'No exporter for export type "{export_type}": this service writes'
                f" {', '.join(EXPORT_TYPES)}. Create the reservation again with one of them",
            )
            return _Step("done")
        ordered = False
        for _ in range(_ATTEMPTS):
            reservation = self._load(key)
            if reservation is None:
                return _Step("done")
            values = reservation.values
            # Codes taken before a crash (or before the reservation was run again) stay.
            wanted = int(values["quantity"]) - int(values.get("quantity_reserved") or 0)
            if wanted <= 0:
                return _Step("export", reservation)
            self._projections.catch_up()
            places = self._codes.unassigned(
                values.get("code_type") or "sgtin",
                values.get("product"),
                values.get("account"),
                wanted,
            )
            if len(places) < wanted:
                if ordered or not self._order(reservation, wanted - len(places)):
                    if ordered:
                        self._fail(
                            key,
                            f"The pool made codes, but only {len(places):,} of the"
                            f" {wanted:,} wanted are unassigned codes this reservation may"
                            " take",
                        )
                    return _Step("done")
                ordered = True
                continue
            try:
                self._reserve(reservation, [(p.chunk, p.position) for p in places])
            except (DuplicateAggregate, _Taken):
                # Another reservation or a PATCH got to some of these codes first.
                continue
            return _Step("export", self._load(key))
        self._fail(key, "The codes kept being taken by other reservations; set status to new")
        return _Step("done")

    def _order(self, reservation: Record, shortfall: int) -> bool:
        """Generate the missing codes where a pool covers them; else fail the reservation.
        True when codes were made and taking may be tried again."""
        values = reservation.values
        type_ = values.get("code_type") or "sgtin"
        pool = self._pools.covering(type_, values.get("product"), values.get("account"))
        if pool is None:
            self._fail(
                reservation.key,
                f"Only {int(values['quantity']) - shortfall:,} unassigned {type_} codes"
                + (f' of product "{values["product"]}"' if values.get("product") else "")
                + f" are left; {int(values['quantity']):,} were asked for."
                " Create an identifier job for the rest, then set status to new",
            )
            return False
        self._start(reservation)
        jobs = self._pools.top_up(pool, shortfall)
        if not jobs:
            # Jobs ordered earlier are still running (here or in another process).
            log.info("reservation %s waits for codes from the pool", reservation.key)
            return False
        for job in jobs:
            self._jobs.run(job)
            failure = self._jobs.failure(job)
            if failure is not None:
                self._fail(reservation.key, f"The codes could not be generated: {failure}")
                return False
        return True

    def _reserve(self, reservation: Record, places: list[tuple[str, int]]) -> None:
        at = self._now()
        by_chunk: dict[str, list[int]] = defaultdict(list)
        for chunk_key, position in places:
            by_chunk[chunk_key].append(position)
        chunks = []
        for chunk_key, positions in by_chunk.items():
            chunk: CodeChunk = self._store.get(chunk_key)
            # The read model may lag behind the chunk: the chunk decides.
            if any(chunk.value(p, "status") != "unassigned" for p in positions):
                raise _Taken()
            chunk.change(
                positions,
                {"status": "reserved", "reservation": reservation.key},
                reservation.values.get("user_created"),
                at,
            )
            chunks.append(chunk)
        reserved = int(reservation.values.get("quantity_reserved") or 0) + len(places)
        reservation.update({"status": "in_progress", "quantity_reserved": reserved}, None, at)
        self._store.save(*chunks, reservation)

    async def _export(self, reservation: Record) -> None:
        values = reservation.values
        # The file lists what the table holds, so the table first takes in every code
        # taken (a wait with a timeout could leave some out).
        await self._blocking.run(self._projections.catch_up)
        codes = await self._blocking.run(self._codes.reserved, reservation.key)
        export_type = values.get("export_type") or "csv"
        data = await self._blocking.run(
            export_codes, export_type, reservation.key, codes, values.get("url_suffix")
        )
        file_key = await self._files.store(
            f"codes-{reservation.key}{extension(export_type)}",
            media_type(export_type),
            data,
            owner=values.get("user_created"),
            account=values.get("account"),
        )
        await self._blocking.run(
            self._finish, reservation.key, {"status": "complete", "export_file": file_key}
        )

    def _start(self, reservation: Record) -> None:
        if reservation.values.get("status") == "new":
            reservation.update({"status": "in_progress"}, None, self._now())
            self._store.save(reservation)

    def _fail(self, key: str, message: str) -> None:
        self._finish(key, {"status": "error", "error_message": message})

    def _finish(self, key: str, changes: dict[str, Any]) -> None:
        change_record(self._store, RESERVATIONS, key, changes, self._now())

    def _load(self, key: str) -> Record | None:
        record = live_record(self._store, RESERVATIONS, key)
        if record is None or record.values.get("status") not in ("new", "in_progress"):
            return None
        return record

    def _now(self) -> str:
        return format_datetime(self._clock())


class _Taken(Exception):
    """A code chosen from the read model was taken meanwhile."""
