"""What monitoring reads from the read models: background work by status, the flows'
cursors, identifier jobs' progress. A few grouped queries, cheap enough for each scrape."""

from dataclasses import dataclass

from domain.masterdata.codes import CODE_RESERVATION, IDENTIFIER_JOB
from domain.masterdata.outbound_flows import EPCIS_OUTBOUND_FLOW, EPCIS_SUBSCRIPTION
from infrastructure.database import Database


@dataclass(frozen=True)
class FlowRow:
    """One outbound flow's state as the runner left it."""

    key: str
    active: bool
    status: str
    last_position: int
    backlog: int
    last_run_at: str | None
    processed_until: str | None


@dataclass(frozen=True)
class StatusRow:
    """Records of one status: how many, and (jobs) the codes asked for and created."""

    status: str
    count: int
    requested: int = 0
    created: int = 0


@dataclass(frozen=True)
class SubscriptionRow:
    """Subscriptions of one status: how many, and the furthest-behind cursor."""

    status: str
    count: int
    lowest_position: int


class MonitoringReader:
    """Grouped reads of the background work's tables."""

    def __init__(self, database: Database) -> None:
        self._database = database

    def flows(self) -> list[FlowRow]:
        """Every outbound flow (they are few: an administrator makes each)."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT id, active, status, last_position, backlog, last_run_at,"
                f" max_record_time_processed FROM {EPCIS_OUTBOUND_FLOW.name} ORDER BY id"
            )
        return [
            FlowRow(
                str(r[0]),
                bool(r[1]),
                str(r[2] or "idle"),
                int(r[3] or 0),
                int(r[4] or 0),
                r[5],
                r[6],
            )
            for r in rows
        ]

    def subscriptions(self) -> list[SubscriptionRow]:
        """Subscriptions by status (`inactive` for those switched off)."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT CASE WHEN active = 1 THEN status ELSE 'inactive' END AS state,"
                " COUNT(*), MIN(COALESCE(last_position, 0))"
                f" FROM {EPCIS_SUBSCRIPTION.name} GROUP BY state ORDER BY state"
            )
        return [SubscriptionRow(str(r[0] or "active"), int(r[1]), int(r[2] or 0)) for r in rows]

    def first_record_time_after(self, position: int) -> int | None:
        """Record time (µs) of the oldest event stored after log `position`, if any: record
        times grow with the log, so the first after it is the oldest."""
        with self._database.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT record_time FROM epcis_events WHERE position > ? ORDER BY position LIMIT 1",
                (position,),
            )
        return None if value is None else int(value)

    def identifier_jobs(self) -> list[StatusRow]:
        """Identifier jobs by status, with the codes they asked for and have created."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT status, COUNT(*), SUM(quantity), SUM(COALESCE(quantity_created, 0))"
                f" FROM {IDENTIFIER_JOB.name} GROUP BY status ORDER BY status"
            )
        return [StatusRow(str(r[0]), int(r[1]), int(r[2] or 0), int(r[3] or 0)) for r in rows]

    def reservations(self) -> list[StatusRow]:
        """Code reservations by status."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT status, COUNT(*) FROM {CODE_RESERVATION.name}"
                " GROUP BY status ORDER BY status"
            )
        return [StatusRow(str(r[0]), int(r[1])) for r in rows]
