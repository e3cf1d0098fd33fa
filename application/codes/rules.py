"""What the code collections add to plain storage: jobs and reservations checked when
they are asked for and fixed once work on them starts; codes changed in their chunks."""

from collections.abc import Callable, Sequence
from typing import Any

from application.items.rules import CollectionRules, Item, Related
from application.service.errors import InvalidPayload
from domain.codes.chunk import CodeChunk
from domain.codes.plans import PlanError, plan_job, product_gtin
from domain.masterdata.codes import CODE_RESERVATION, IDENTIFIER_JOB
from projections.codes.reader import CodeReader

#: What a job makes; it cannot change once the job has started.
_JOB_PLAN_FIELDS = frozenset(
    {
        "type",
        "quantity",
        "length",
        "character_set",
        "product",
        "sscc_start_serial",
        "sscc_extension_digit",
        "sscc_company_prefix",
        "domain",
    }
)
_RESERVATION_FIELDS = frozenset({"code_type", "quantity", "product", "export_type", "url_suffix"})


def _status_change(values: Item, current: Item | None, what: str) -> None:
    """A job's or reservation's status: "new" on creation; by PATCH only back to "new"
    (try again) or to "error" (stop); the worker sets the others."""
    status = values.get("status")
    if status is None or (current is not None and status == current.get("status")):
        return
    if current is None and status != "new":
        raise InvalidPayload(f'A new {what} has status "new"; the worker moves it on')
    if current is not None and status not in ("new", "error"):
        raise InvalidPayload(
            f'"status" of a {what} can be set to "new" (run it again) or "error" (stop it);'
            " the worker sets the others"
        )


def _fixed(
    values: Item, current: Item | None, fields: frozenset[str], progress: str, what: str
) -> None:
    """Refuse changes to what a job or reservation makes once it has started: once the
    worker took it up, and for good once it made or took anything (setting the status
    back to "new" does not make it new again)."""
    if current is None:
        return
    started = current.get("status") != "new" or int(current.get(progress) or 0) > 0
    changed = sorted(k for k in fields & set(values) if values[k] != current.get(k))
    if started and changed:
        raise InvalidPayload(
            f'"{changed[0]}" cannot change once the {what} has started'
            f' (status "{current.get("status")}", {progress} {current.get(progress) or 0})'
        )


class _WakesTheWorker(CollectionRules):
    """New work, and work set back to "new", starts without waiting for the next poll."""

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake

    async def after_create(self, items: Sequence[Item]) -> None:
        """Wake the worker for the new items."""
        self._wake()

    async def after_update(self, caller: Any, keys: Sequence[Any], changes: Item) -> None:
        """Wake the worker for items set back to "new" (run them again)."""
        if changes.get("status") == "new":
            self._wake()


class IdentifierJobRules(_WakesTheWorker):
    """Checks a job as it is asked for, so a client learns at once what cannot be made,
    and wakes the worker for new jobs."""

    def __init__(self, link_base: str, max_quantity: int, wake: Callable[[], None]) -> None:
        super().__init__(wake)
        self._base = link_base
        self._max = max_quantity

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check the job's fields together; errors are 400s naming the field."""
        _status_change(values, current, "job")
        _fixed(values, current, _JOB_PLAN_FIELDS, "quantity_created", "job")
        if values.get("domain") is not None and not isinstance(values["domain"], dict):
            raise InvalidPayload('"domain" must be an object')
        merged = {**IDENTIFIER_JOB.defaults(), **(current or {}), **values}
        if current is None or _JOB_PLAN_FIELDS & set(values):
            product = merged.get("product")
            try:
                gtin = product_gtin(related("product", product)) if product else None
                plan_job(merged, gtin, self._base, self._max)
            except PlanError as exc:
                raise InvalidPayload(str(exc)) from exc
        if values.get("status") == "new" and current is not None:
            # Run again: the last run's error no longer holds.
            values = {**values, "error_message": None}
        if values.get("status") == "error" and current is not None:
            values = {"error_message": "Stopped by request", **values}
        return values


class CodeReservationRules(_WakesTheWorker):
    """Checks a reservation as it is asked for and wakes the worker for it."""

    def __init__(self, max_quantity: int, wake: Callable[[], None]) -> None:
        super().__init__(wake)
        self._max = max_quantity

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Check the quantity; fix what a started reservation takes. The export type is an
        open list: the worker fails a type it has no exporter for (see `CodeReservations`)."""
        _status_change(values, current, "reservation")
        _fixed(values, current, _RESERVATION_FIELDS, "quantity_reserved", "reservation")
        merged = {**CODE_RESERVATION.defaults(), **(current or {}), **values}
        if int(merged.get("quantity") or 0) > self._max:
            raise InvalidPayload(f'"quantity" may be at most {self._max:,} per reservation')
        if values.get("status") == "new" and current is not None:
            values = {**values, "error_message": None}
        return values


class UniqueCodeRules(CollectionRules):
    """A code set back to unassigned leaves its reservation and returns to the pool."""

    def derive(self, values: Item, current: Item | None, related: Related) -> Item:
        """Clear `reservation` when a code becomes unassigned."""
        if values.get("status") == "unassigned":
            return {**values, "reservation": None}
        return values


class CodeRecord:
    """One code as a record, over the chunk that holds it."""

    deleted = False

    def __init__(self, chunk: CodeChunk, position: int) -> None:
        self._chunk = chunk
        self._position = position

    @property
    def values(self) -> Item:
        """The code's fields as they are now."""
        return self._chunk.values(self._position)

    def update(
        self,
        changes: Item,
        actor: str | None,
        at: str,
        *,
        ip: str | None = None,
        user_agent: str | None = None,
    ) -> None:
        """Change the code: an event on its chunk."""
        self._chunk.change([self._position], changes, actor, at, ip=ip, user_agent=user_agent)


class CodeRecords:
    """Where unique codes live, for the items service: in their chunks."""

    def __init__(self, codes: CodeReader) -> None:
        self._codes = codes

    def record(self, load: Callable[[str], Any], key: Any) -> CodeRecord:
        """The code `key` (KeyError when there is none)."""
        place = self._codes.places([str(key)]).get(str(key))
        if place is None:
            raise KeyError(key)
        return CodeRecord(load(place.chunk), place.position)
