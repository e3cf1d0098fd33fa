"""The code pool (spec §1 rule 4): identifier jobs made by the service whenever the
unassigned codes of a configured kind run low, so users and scripts need not make them."""

import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from domain.codes.plans import PlanError, plan_job
from domain.codes.serial_keys import SSCC_BODY
from domain.collections.coercion import format_datetime
from domain.collections.payload import PayloadError, check_payload
from domain.masterdata.codes import IDENTIFIER_JOB
from domain.masterdata.fields import CODE_TYPES
from domain.records.record import Record
from infrastructure.database import Database
from infrastructure.event_store import EventStore
from projections.codes.reader import CodeReader
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)


class PoolSettingError(ValueError):
    """TRACEPOINT_CODE_POOLS does not describe pools; the message says where."""


@dataclass(frozen=True)
class CodePool:
    """Keep at least `minimum` unassigned codes of a type (and product), topping up by
    jobs of `batch` codes made with the other identifier_job fields in `job`."""

    type: str
    product: str | None
    minimum: int
    batch: int
    job: dict[str, Any] = field(default_factory=dict)
    #: The account the codes are for (multi-tenant installations name one per pool).
    account: str | None = None

    def covers(self, type: str, product: str | None, account: str | None) -> bool:
        """Whether this pool keeps codes of this type and product for this account."""
        return (
            self.type == type
            and (self.product == product or product is None)
            and self.account == account
        )


#: Fields of a job that the pool decides, not its setting.
_POOL_DECIDES = ("id", "status", "quantity", "quantity_created", "error_message")
#: Stands in for a pool product's GTIN, which is known only once the service runs.
_ANY_GTIN = "00000000000000"


def parse_pools(text: str, *, multi_tenant: bool = False) -> tuple[CodePool, ...]:
    """The pools of the TRACEPOINT_CODE_POOLS setting (a JSON list of objects), checked
    as far as they can be before the service runs (a product's GTIN is checked then)."""
    try:
        entries = orjson.loads(text or "[]")
    except orjson.JSONDecodeError as exc:
        raise PoolSettingError(f"TRACEPOINT_CODE_POOLS is not JSON: {exc}") from exc
    if not isinstance(entries, list):
        raise PoolSettingError("TRACEPOINT_CODE_POOLS must be a JSON list of pools")
    pools = []
    for i, entry in enumerate(entries):
        where = f"TRACEPOINT_CODE_POOLS[{i}]"
        if not isinstance(entry, dict):
            raise PoolSettingError(f"{where} must be an object")
        entry = dict(entry)
        type_ = entry.pop("type", "sgtin")
        if type_ not in CODE_TYPES:
            raise PoolSettingError(f'{where}: "type" must be one of {", ".join(CODE_TYPES)}')
        minimum, batch = entry.pop("minimum", None), entry.pop("batch", None)
        if not isinstance(minimum, int) or minimum < 1:
            raise PoolSettingError(f'{where}: "minimum" must be a positive integer')
        if not isinstance(batch, int) or batch < 1:
            raise PoolSettingError(f'{where}: "batch" must be a positive integer')
        decided = [name for name in _POOL_DECIDES if name in entry]
        if decided:
            raise PoolSettingError(f'{where}: "{decided[0]}" is decided by the pool')
        account = entry.pop("account", None)
        if (account is None) == multi_tenant:
            raise PoolSettingError(
                f'{where}: "account" names the account a pool is for in multi-tenant'
                " installations, and only there"
            )
        product = entry.get("product")
        values = {**entry, "type": type_, "quantity": batch}
        try:
            check_payload(IDENTIFIER_JOB, values)
            plan_job(values, _ANY_GTIN if product else None, "https://pool", max(batch, 1))
        except (PayloadError, PlanError) as exc:
            raise PoolSettingError(f"{where}: {exc}") from exc
        pools.append(CodePool(type_, product, minimum, batch, entry, account))
    return tuple(pools)


class CodePools:
    """Orders identifier jobs for the pools that run low."""

    def __init__(
        self,
        pools: Sequence[CodePool],
        store: EventStore,
        database: Database,
        codes: CodeReader,
        projections: ProjectionRunner,
        *,
        max_quantity: int,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.pools = tuple(pools)
        self._store = store
        self._database = database
        self._codes = codes
        self._projections = projections
        self._max = max_quantity
        self._clock = clock

    def covering(self, type: str, product: str | None, account: str | None) -> CodePool | None:
        """The pool that keeps codes of this type and product for the account, if any."""
        return next((p for p in self.pools if p.covers(type, product, account)), None)

    def refill(self) -> list[str]:
        """Order jobs for every pool below its minimum; the keys of the jobs ordered."""
        ordered: list[str] = []
        # Two processes looking at once would both order the same codes.
        with self._database.try_exclusive("code-pools") as mine:
            if not mine:
                return ordered
            self._projections.catch_up()
            for pool in self.pools:
                available = self.available(pool)
                if available < pool.minimum and not self._failing(pool):
                    ordered += self._order(pool, max(pool.batch, pool.minimum - available))
        return ordered

    def available(self, pool: CodePool) -> int:
        """Unassigned codes of the pool plus those its unfinished jobs will add."""
        kind = (pool.type, pool.product, pool.account)
        return self._codes.count_unassigned(*kind) + self._codes.pending_quantity(*kind)

    def _failing(self, pool: CodePool) -> bool:
        """Whether the pool's last job failed: more would fail the same way, so it orders
        no more until someone sets that job back to "new" or fixes the setting."""
        latest = self._codes.latest_job(pool.type, pool.product, _reference(pool))
        if latest is None or latest[0] != "error":
            return False
        log.warning("code pool %s/%s: its last job failed: %s", pool.type, pool.product, latest[1])
        return True

    def top_up(self, pool: CodePool, shortfall: int) -> list[str]:
        """Order codes a reservation lacks (a batch at least); the jobs' keys."""
        with self._database.exclusive("code-pools"):
            self._projections.catch_up()
            pending = self._codes.pending_quantity(pool.type, pool.product, pool.account)
            if pending >= shortfall:
                return []
            return self._order(pool, max(pool.batch, shortfall - pending))

    def _order(self, pool: CodePool, quantity: int) -> list[str]:
        keys = []
        at = format_datetime(self._clock())
        start = self._next_sscc_serial(pool) if pool.type == "sscc" else None
        while quantity > 0:
            part = min(quantity, self._max)
            values = {
                **IDENTIFIER_JOB.defaults(),
                **pool.job,
                "type": pool.type,
                "quantity": part,
                "reference_id": _reference(pool),
            }
            if pool.account is not None:
                values["account"] = pool.account
            if start is not None:
                values["sscc_start_serial"] = start
                start += part
            key = str(uuid.uuid4())
            values["id"] = key
            values["date_created"] = at
            self._store.save(Record(IDENTIFIER_JOB.name, key, values, None, at))
            log.info(
                "code pool %s/%s: ordered %d codes (job %s)", pool.type, pool.product, part, key
            )
            keys.append(key)
            quantity -= part
        return keys

    def _next_sscc_serial(self, pool: CodePool) -> int:
        """The serial reference after the last SSCC of the pool's company prefix."""
        prefix = str(pool.job.get("sscc_company_prefix") or "")
        head = f"{pool.job.get('sscc_extension_digit', 0)}{prefix}"
        last = self._codes.highest("sscc", head)
        starts = [int(pool.job.get("sscc_start_serial") or 0)]
        if last is not None and len(last) == SSCC_BODY + 1:
            starts.append(int(last[len(head) : SSCC_BODY]) + 1)
        # Jobs ordered before may not have made their SSCCs yet.
        ordered = self._codes.sscc_ordered_up_to(
            int(pool.job.get("sscc_extension_digit", 0)), prefix
        )
        if ordered is not None:
            starts.append(ordered)
        return max(starts)


def _reference(pool: CodePool) -> str:
    """The reference of a pool's jobs."""
    return str(pool.job.get("reference_id") or "code pool")
