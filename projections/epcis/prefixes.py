"""The prefixes captured documents bound, per account: how a query's CURIEs are read when
the query binds none itself. Kept with the query tables, from the same captured events.

A binding belongs to the account whose user captured the document (empty outside
multi-tenant installations), so one tenant's documents never give meaning to, or make
ambiguous, another tenant's CURIEs. The account of a capture comes from its capture job,
which the log holds before the job's events; the table of capture accounts keeps it
across batches.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from domain.epcis.capture_job import CaptureJob
from domain.epcis.curies import event_namespaces
from infrastructure.connection import Connection
from infrastructure.database import Database
from infrastructure.event_store import LoggedEvent
from infrastructure.sql_conditions import chunks, in_list

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS epcis_prefixes (
        prefix {key_text} NOT NULL,
        namespace {key_text} NOT NULL,
        account {key_text} NOT NULL,
        PRIMARY KEY (prefix, namespace, account))""",
    # Only captures of multi-tenant installations have an account.
    """CREATE TABLE IF NOT EXISTS epcis_capture_accounts (
        capture_id {key_text} PRIMARY KEY,
        account {key_text} NOT NULL)""",
)
TABLES = ("epcis_prefixes", "epcis_capture_accounts")
#: What the query tables follow besides captured events: the jobs that name accounts.
FOLLOWS = (CaptureJob.Completed,)

#: Longest binding kept: longer ones (PostgreSQL refuses B-tree entries over 2,704
#: bytes) leave their CURIEs unexpanded in queries.
_MAX_LENGTH = 600

#: What a look-up found: each prefix, and the namespaces it was bound to.
Bindings = dict[str, set[str]]


def record_capture_accounts(conn: Connection, jobs: Sequence[LoggedEvent]) -> dict[str, str]:
    """Remember the account of each capture job that has one; the account of each job
    (empty: none), for the events that follow in the same batch."""
    completed: list[Any] = [logged.event for logged in jobs]
    accounts = {job.capture_id: getattr(job, "account", None) or "" for job in completed}
    conn.executemany(
        "INSERT INTO epcis_capture_accounts (capture_id, account) VALUES (?, ?)"
        " ON CONFLICT DO NOTHING",
        [(capture_id, account) for capture_id, account in accounts.items() if account],
    )
    return accounts


def capture_accounts(
    conn: Connection, events: Sequence[LoggedEvent], accounts: Mapping[str, str]
) -> dict[str, str]:
    """The account (empty: none) of the capture of each of the captured `events`, given
    `accounts`, those of the batch's own jobs."""
    # A capture's job comes just before its events, mostly in the same batch: only a
    # batch that starts amid a capture's events reads the job's account back.
    captures = {logged.event.capture_id for logged in events}  # type: ignore[attr-defined]
    missing = sorted(captures - accounts.keys())
    found = _capture_accounts(conn, missing) if missing else {}
    return {capture: found.get(capture) or accounts.get(capture, "") for capture in captures}


def record_prefixes(
    conn: Connection, events: Sequence[LoggedEvent], accounts: Mapping[str, str]
) -> None:
    """Remember every binding the captured events' documents (and own contexts) made,
    under the account that captured them (`accounts`, by capture: `capture_accounts`)."""
    found: dict[str, set[tuple[str, str]]] = {}
    for logged in events:
        captured: Any = logged.event
        if captured.namespaces or "@context" in captured.epcis_event:
            pairs = event_namespaces(captured.epcis_event, captured.namespaces).items()
            found.setdefault(captured.capture_id, set()).update(
                pair for pair in pairs if len(pair[0]) + len(pair[1]) <= _MAX_LENGTH
            )
    if not found:
        return
    bindings = {
        (prefix, namespace, accounts.get(capture_id, ""))
        for capture_id, pairs in found.items()
        for prefix, namespace in pairs
    }
    conn.executemany(
        "INSERT INTO epcis_prefixes (prefix, namespace, account) VALUES (?, ?, ?)"
        " ON CONFLICT DO NOTHING",
        sorted(bindings),
    )


def _capture_accounts(conn: Connection, capture_ids: Sequence[str]) -> dict[str, str]:
    accounts: dict[str, str] = {}
    for part in chunks(capture_ids, 500):
        params: list[Any] = []
        where = in_list("capture_id", part, params)
        rows = conn.fetchall(
            f"SELECT capture_id, account FROM epcis_capture_accounts WHERE {where}", params
        )
        accounts.update((capture_id, account) for capture_id, account in rows)
    return accounts


class PrefixReader:
    """Looks up what the captured documents of some accounts bound prefixes to."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def bindings(self, prefixes: Sequence[str], accounts: Sequence[str] | None) -> Bindings:
        """The namespaces each of `prefixes` was bound to by documents the `accounts`
        captured (None: any account); a prefix never bound is absent."""
        if not prefixes:
            return {}
        params: list[Any] = []
        where = [in_list("prefix", prefixes, params)]
        return self._read(where, params, accounts)

    def bindings_per_account(self, prefixes: Sequence[str]) -> dict[str, Bindings]:
        """What the documents of each account bound each of `prefixes` to, by account
        (absent: an account that bound none of them)."""
        if not prefixes:
            return {}
        params: list[Any] = []
        where = in_list("prefix", prefixes, params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT account, prefix, namespace FROM epcis_prefixes WHERE {where}", params
            )
        found: dict[str, Bindings] = {}
        for account, prefix, namespace in rows:
            found.setdefault(account, {}).setdefault(prefix, set()).add(namespace)
        return found

    def all_bindings(self, accounts: Sequence[str] | None) -> Bindings:
        """Every prefix documents the `accounts` captured (None: any account) bound, and
        the namespaces they bound it to."""
        return self._read([], [], accounts)

    def _read(
        self, where: list[str], params: list[Any], accounts: Sequence[str] | None
    ) -> Bindings:
        if accounts is not None:
            where.append(in_list("account", accounts, params))
        sql = "SELECT DISTINCT prefix, namespace FROM epcis_prefixes"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(sql, params)
        found: Bindings = {}
        for prefix, namespace in rows:
            found.setdefault(prefix, set()).add(namespace)
        return found
