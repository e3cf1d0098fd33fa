"""Read-model lookups behind code generation, reservations and the resolver."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.codes.exports import ExportedCode
from infrastructure.database import Database
from infrastructure.sql_conditions import any_of, chunks, in_list

_CODES = "unique_code"


@dataclass(frozen=True)
class CodePlace:
    """Where a code lives: its chunk and its position in it."""

    id: str
    chunk: str
    position: int


@dataclass(frozen=True)
class FoundCode:
    """A code the resolver found, with what a label would show of it."""

    id: str
    code: str
    type: str
    status: str
    product: str | None
    reservation: str | None
    digital_link: str | None
    #: The code's account (multi-tenant installations).
    account: str | None = None


@dataclass(frozen=True)
class ScanRow:
    """An earlier scan of a code, where it happened."""

    latitude: float
    longitude: float
    scanned_at: str


class CodeReader:
    """Queries over the unique_code table and the jobs and reservations that feed it."""

    def __init__(self, database: Database, *, multi_tenant: bool = False) -> None:
        self._database = database
        self._multi_tenant = multi_tenant

    def taken(self, scope: str, candidates: Sequence[str]) -> set[str]:
        """Which candidate codes already exist in `scope`."""
        with self._database.transaction(write=False) as conn:
            params: list[Any] = [scope]
            where = any_of(conn.dialect, "code", candidates, params)
            rows = conn.fetchall(f"SELECT code FROM {_CODES} WHERE scope = ? AND {where}", params)
        return {row[0] for row in rows}

    def count_of_length(self, scope: str, length: int) -> int:
        """How many codes of `length` characters `scope` holds."""
        with self._database.transaction(write=False) as conn:
            return int(
                conn.fetchval(
                    f"SELECT COUNT(*) FROM {_CODES} WHERE scope = ? AND LENGTH(code) = ?",
                    (scope, length),
                )
            )

    def codes_of_length(self, scope: str, length: int) -> set[str]:
        """Every code of `length` characters in `scope` (for nearly full code spaces)."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT code FROM {_CODES} WHERE scope = ? AND LENGTH(code) = ?",
                (scope, length),
            )
        return {row[0] for row in rows}

    def count_between(self, scope: str, low: str, high: str) -> int:
        """How many codes of `scope` sort between `low` and `high` (fixed-width keys)."""
        with self._database.transaction(write=False) as conn:
            return int(
                conn.fetchval(
                    f"SELECT COUNT(*) FROM {_CODES} WHERE scope = ? AND code BETWEEN ? AND ?",
                    (scope, low, high),
                )
            )

    def places(self, ids: Sequence[str]) -> dict[str, CodePlace]:
        """Where each of these codes lives (codes that do not exist are left out)."""
        found: dict[str, CodePlace] = {}
        with self._database.transaction(write=False) as conn:
            for part in chunks(list(ids), 900):
                params: list[Any] = []
                where = in_list("id", part, params)
                rows = conn.fetchall(
                    f"SELECT id, chunk, chunk_position FROM {_CODES} WHERE {where}", params
                )
                found.update((r[0], CodePlace(r[0], r[1], int(r[2]))) for r in rows)
        return found

    def unassigned(
        self, type: str, product: str | None, account: str | None, limit: int
    ) -> list[CodePlace]:
        """`limit` unassigned codes of a type (and product), of an account when
        installations have several: whole chunks first, so a reservation touches few."""
        where, params = _kind("status = 'unassigned'", type, product, account)
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT id, chunk, chunk_position FROM {_CODES} WHERE {where}"
                " ORDER BY chunk, chunk_position LIMIT ?",
                [*params, limit],
            )
        return [CodePlace(r[0], r[1], int(r[2])) for r in rows]

    def count_unassigned(self, type: str, product: str | None, account: str | None = None) -> int:
        """How many unassigned codes of a type (and product, and account) there are."""
        where, params = _kind("status = 'unassigned'", type, product, account)
        with self._database.transaction(write=False) as conn:
            return int(conn.fetchval(f"SELECT COUNT(*) FROM {_CODES} WHERE {where}", params))

    def any_in(self, scope: str) -> bool:
        """Whether `scope` holds any code (we make codes of this GTIN, of this GRAI…)."""
        with self._database.transaction(write=False) as conn:
            return (
                conn.fetchone(f"SELECT 1 FROM {_CODES} WHERE scope = ? LIMIT 1", (scope,))
                is not None
            )

    def find(self, scope: str, code: str) -> FoundCode | None:
        """The code `code` of `scope`, or None."""
        account = ", account" if self._multi_tenant else ""
        with self._database.transaction(write=False) as conn:
            row = conn.fetchone(
                f"SELECT id, code, type, status, product, reservation, digital_link{account}"
                f" FROM {_CODES} WHERE scope = ? AND code = ?",
                (scope, code),
            )
        return FoundCode(*row) if row is not None else None

    def reserved(self, reservation: str) -> list[ExportedCode]:
        """The codes a reservation holds, in the order they were generated."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT id, type, code, scope, digital_link, status"
                f" FROM {_CODES} WHERE reservation = ? ORDER BY chunk, chunk_position",
                (reservation,),
            )
        return [
            ExportedCode(
                id=r[0],
                type=r[1],
                code=r[2],
                gtin=r[3].split(":", 1)[1] if r[1] == "sgtin" else None,
                digital_link=r[4] or "",
                status=r[5],
            )
            for r in rows
        ]

    def highest(self, scope: str, head: str) -> str | None:
        """The highest code of `scope` that starts with `head` (the last SSCC of a
        company prefix), or None."""
        with self._database.transaction(write=False) as conn:
            value = conn.fetchval(
                f"SELECT MAX(code) FROM {_CODES} WHERE scope = ? AND code >= ? AND code < ?",
                (scope, head, head + "~"),
            )
        return str(value) if value is not None else None

    def waiting(self, collection: str) -> list[str]:
        """Keys of the jobs or reservations still to do (status new or in_progress), the
        oldest first."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT id FROM \"{collection}\" WHERE status IN ('new', 'in_progress')"
                " ORDER BY date_created, id"
            )
        return [row[0] for row in rows]

    def pending_quantity(self, type: str, product: str | None, account: str | None = None) -> int:
        """Codes that unfinished identifier jobs of a type (and product, and account) will
        still add."""
        where, params = _kind("status IN ('new', 'in_progress')", type, product, account)
        with self._database.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT SUM(quantity - COALESCE(quantity_created, 0)) FROM identifier_job"
                f" WHERE {where}",
                params,
            )
        return int(value or 0)

    def latest_job(self, type: str, product: str | None, reference: str) -> tuple[str, str] | None:
        """The status and error message of the newest job with this reference, if any."""
        where, params = _kind("reference_id = ?", type, product, None)
        with self._database.transaction(write=False) as conn:
            row = conn.fetchone(
                f"SELECT status, error_message FROM identifier_job WHERE {where}"
                " ORDER BY date_created DESC, id DESC LIMIT 1",
                [reference, *params],
            )
        return (str(row[0]), str(row[1] or "")) if row is not None else None

    def sscc_ordered_up_to(self, extension: int, company_prefix: str) -> int | None:
        """The serial reference after the ranges of unfinished SSCC jobs of a company
        prefix, or None when there are none."""
        with self._database.transaction(write=False) as conn:
            value = conn.fetchval(
                "SELECT MAX(COALESCE(sscc_start_serial, 0) + quantity) FROM identifier_job"
                " WHERE type = 'sscc' AND status IN ('new', 'in_progress')"
                " AND sscc_extension_digit = ? AND sscc_company_prefix = ?",
                (extension, company_prefix),
            )
        return int(value) if value is not None else None

    def recent_scans(self, code: str, since: str) -> list[ScanRow]:
        """Scans of a code with coordinates at or after `since` (ISO 8601 UTC)."""
        with self._database.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT latitude, longitude, scanned_at FROM code_scan WHERE code = ?"
                " AND scanned_at >= ? AND latitude IS NOT NULL AND longitude IS NOT NULL",
                (code, since),
            )
        return [ScanRow(float(r[0]), float(r[1]), str(r[2])) for r in rows]


def _kind(
    condition: str, type: str, product: str | None, account: str | None
) -> tuple[str, list[Any]]:
    """`condition` and a type, with a product and an account where they are given."""
    where, params = f"{condition} AND type = ?", [type]
    if product is not None:
        where += " AND product = ?"
        params.append(product)
    if account is not None:
        where += " AND account = ?"
        params.append(account)
    return where, params
