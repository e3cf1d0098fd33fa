"""Small read-model lookups: capture jobs and named queries."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from domain.collections.schema import Collection, Field, FieldType
from domain.collections.selection import is_concealed
from infrastructure.database import Database
from infrastructure.sql_conditions import in_list


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
    declarations_stored: int = 0


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
        declarations_stored=int(row[11]),
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
                " account, declarations_stored FROM epcis_capture_jobs WHERE capture_id = ?",
                (capture_id,),
            )
        return _job(row) if row is not None else None

    def capture_jobs(
        self,
        limit: int,
        before_position: int | None,
        accounts: Sequence[str] | None = None,
        captured_by: str | None = None,
    ) -> list[CaptureJobRow]:
        """The newest capture jobs first (of these accounts, and by this user, when given)."""
        sql = (
            "SELECT capture_id, error_behaviour, created_at, finished_at, events_received,"
            " events_stored, events_already_present, events_rejected, errors, captured_by,"
            " account, declarations_stored FROM epcis_capture_jobs WHERE 1 = 1"
        )
        params: list[Any] = []
        if before_position is not None:
            sql += " AND position < ?"
            params.append(before_position)
        if accounts is not None:
            sql += " AND " + in_list("account", accounts, params)
        if captured_by is not None:
            sql += " AND captured_by = ?"
            params.append(captured_by)
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


class SubscriptionReader:
    """The epcis_subscription table, as the subscription service reads it (every field
    but the concealed token, in its API form)."""

    def __init__(self, database: Database, collection: Collection) -> None:
        self._database = database
        self._fields = [f for f in collection.fields if not is_concealed(f)]
        self._table = collection.table

    def all(self, query_name: str | None) -> list[dict[str, Any]]:
        """Every subscription (to one named query), oldest first."""
        columns = ", ".join(f'"{f.name}"' for f in self._fields)
        where, params = ("WHERE query_name = ?", [query_name]) if query_name else ("", [])
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f'SELECT {columns} FROM "{self._table}" {where} ORDER BY date_created, id',
                params,
            )
        return [
            {f.name: _api_value(f, value) for f, value in zip(self._fields, row, strict=True)}
            for row in rows
        ]


def _api_value(field: Field, value: Any) -> Any:
    """A column's value as the API has it (the inverse of `records.column_value`)."""
    if value is None:
        return None
    if field.type is FieldType.BOOLEAN:
        return bool(value)
    if field.type is FieldType.JSON:
        return orjson.loads(value)
    return value
