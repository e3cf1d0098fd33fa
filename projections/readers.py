"""Small read-model lookups: capture jobs and named queries."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from infrastructure.database import Database, in_list


@dataclass(frozen=True)
class CaptureJobRow:
    """A capture job as stored in its table."""

    capture_id: str
    error_behaviour: str
    created_at: str
    finished_at: str
    events_received: int
    events_stored: int
    events_already_present: int
    events_rejected: int
    errors: list[dict[str, Any]]
    captured_by: str | None
    account: str | None = None


@dataclass(frozen=True)
class NamedQueryRow:
    """A named query as stored in its table."""

    name: str
    query: dict[str, list[str]]
    user_created: str | None
    date_created: str


def _job(row: tuple[Any, ...]) -> CaptureJobRow:
    return CaptureJobRow(
        capture_id=row[0],
        error_behaviour=row[1],
        created_at=row[2],
        finished_at=row[3],
        events_received=int(row[4]),
        events_stored=int(row[5]),
        events_already_present=int(row[6]),
        events_rejected=int(row[7]),
        errors=orjson.loads(row[8]),
        captured_by=row[9],
        account=row[10],
    )


class ReadModels:
    """Lookups in the small read-model tables."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def capture_job(self, capture_id: str) -> CaptureJobRow | None:
        """One capture job, or None."""
        with self._db.transaction(write=False) as conn:
            row = conn.fetchone(
                "SELECT capture_id, error_behaviour, created_at, finished_at, events_received,"
                " events_stored, events_already_present, events_rejected, errors, captured_by,"
                " account FROM epcis_capture_jobs WHERE capture_id = ?",
                (capture_id,),
            )
        return _job(row) if row is not None else None

    def capture_jobs(
        self, limit: int, before_position: int | None, accounts: Sequence[str] | None = None
    ) -> list[CaptureJobRow]:
        """The newest capture jobs first (of these accounts only, when given)."""
        sql = (
            "SELECT capture_id, error_behaviour, created_at, finished_at, events_received,"
            " events_stored, events_already_present, events_rejected, errors, captured_by,"
            " account FROM epcis_capture_jobs WHERE 1 = 1"
        )
        params: list[Any] = []
        if before_position is not None:
            sql += " AND position < ?"
            params.append(before_position)
        if accounts is not None:
            sql += " AND " + in_list("account", accounts, params)
        sql += " ORDER BY position DESC LIMIT ?"
        params.append(limit)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(sql, params)
        return [_job(row) for row in rows]

    def named_query(self, name: str, accounts: Sequence[str] | None = None) -> NamedQueryRow | None:
        """One named query (of these accounts, when given), or None."""
        rows = self._named_queries("name = ?", [name], accounts)
        return rows[0] if rows else None

    def named_queries(self, accounts: Sequence[str] | None = None) -> list[NamedQueryRow]:
        """Every named query (of these accounts, when given), by name."""
        return self._named_queries("1 = 1", [], accounts)

    def _named_queries(
        self, condition: str, params: list[Any], accounts: Sequence[str] | None
    ) -> list[NamedQueryRow]:
        if accounts is not None:
            # The column exists where accounts do: in multi-tenant installations.
            condition += " AND " + in_list("account", accounts, params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT name, query, user_created, date_created FROM epcis_queries"
                f" WHERE {condition} ORDER BY name",
                params,
            )
        return [NamedQueryRow(r[0], orjson.loads(r[1]), r[2], r[3]) for r in rows]
