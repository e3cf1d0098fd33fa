"""Builds the codes capability: jobs, pools, reservations, the resolver and their rules."""

from collections.abc import Mapping
from dataclasses import dataclass

from application.access.throttle import Throttle
from application.codes.jobs import CodeSettings, IdentifierJobs
from application.codes.pools import CodePools, parse_pools
from application.codes.reservations import CodeReservations
from application.codes.resolver import Resolver
from application.codes.rules import (
    CodeRecords,
    CodeReservationRules,
    IdentifierJobRules,
    UniqueCodeRules,
)
from application.codes.work import CodeWork
from application.items.files import FilesService
from application.items.rules import BulkItems, CollectionRules
from application.items.service import ItemsService
from application.service.core import Core
from domain.codes.integrity import DuplicateThresholds
from domain.codes.reserved import RESERVED_SEGMENTS
from projections.codes.reader import CodeReader


@dataclass(frozen=True)
class CodesCapability:
    """The codes capability as the API, the tests and the timer use it."""

    reader: CodeReader
    jobs: IdentifierJobs
    pools: CodePools
    reservations: CodeReservations
    resolver: Resolver
    work: CodeWork
    rules: Mapping[str, CollectionRules]
    #: `unique_code` lives in chunks of codes, not in records of its own.
    bulk: Mapping[str, BulkItems]


def build_codes(core: Core, items: ItemsService, files: FilesService) -> CodesCapability:
    """The code use cases, with their timers registered on the core's background."""
    settings = core.settings
    reader = CodeReader(core.database, multi_tenant=settings.multi_tenant)
    jobs = IdentifierJobs(
        core.store,
        core.database,
        reader,
        core.projections,
        CodeSettings(
            link_base=core.link_base,
            chunk_size=settings.code_chunk_size,
            max_quantity=settings.code_job_max_quantity,
            reserved=RESERVED_SEGMENTS,
        ),
        metrics=core.metrics,
    )
    pools = CodePools(
        parse_pools(settings.code_pools, multi_tenant=settings.multi_tenant),
        core.store,
        core.database,
        reader,
        core.projections,
        max_quantity=settings.code_job_max_quantity,
    )
    reservations = CodeReservations(
        core.store,
        core.database,
        reader,
        core.projections,
        files,
        jobs,
        pools,
        core.blocking,
    )
    resolver = Resolver(
        core.store,
        reader,
        items,
        core.blocking,
        DuplicateThresholds(
            distance_km=settings.integrity_duplicate_km,
            window_seconds=settings.integrity_duplicate_window,
        ),
        core.follower,
        Throttle(core.attempts, core.blocking, "scan", settings.scans_per_minute),
        read_your_writes_timeout=settings.read_your_writes_timeout,
    )
    work = CodeWork(jobs, reservations, pools, core.projections, core.blocking)
    core.background.every("codes", settings.code_worker_interval, work.run)
    if pools.pools:
        core.background.every("code-pools", settings.code_pool_interval, work.refill_pools)

    def wake() -> None:
        core.background.wake("codes")

    max_quantity = settings.code_job_max_quantity
    rules: dict[str, CollectionRules] = {
        "identifier_job": IdentifierJobRules(core.link_base, max_quantity, wake),
        "code_reservation": CodeReservationRules(max_quantity, wake),
        "unique_code": UniqueCodeRules(),
    }
    return CodesCapability(
        reader,
        jobs,
        pools,
        reservations,
        resolver,
        work,
        rules,
        {"unique_code": CodeRecords(reader)},
    )
