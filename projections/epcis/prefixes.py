"""The prefixes captured documents bound: how a query's CURIEs are read when the query
binds none itself. Kept with the query tables, from the same captured events."""

from collections.abc import Sequence
from typing import Any

from domain.epcis.curies import event_namespaces
from infrastructure.database import Connection, Database, in_list
from infrastructure.event_store import LoggedEvent

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS epcis_prefixes (
        prefix {key_text} NOT NULL,
        namespace {key_text} NOT NULL,
        PRIMARY KEY (prefix, namespace))""",
)
TABLES = ("epcis_prefixes",)

#: Longest binding kept: longer ones (PostgreSQL refuses B-tree entries over 2,704
#: bytes) leave their CURIEs unexpanded in queries.
_MAX_LENGTH = 600


def record_prefixes(conn: Connection, events: Sequence[LoggedEvent]) -> None:
    """Remember every binding the captured events' documents (and own contexts) made."""
    bindings: set[tuple[str, str]] = set()
    for logged in events:
        captured: Any = logged.event
        if captured.namespaces or "@context" in captured.epcis_event:
            found = event_namespaces(captured.epcis_event, captured.namespaces)
            bindings.update(
                pair for pair in found.items() if len(pair[0]) + len(pair[1]) <= _MAX_LENGTH
            )
    conn.executemany(
        "INSERT INTO epcis_prefixes (prefix, namespace) VALUES (?, ?) ON CONFLICT DO NOTHING",
        sorted(bindings),
    )


class PrefixReader:
    """Looks up what captured documents bound prefixes to."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def bindings(self, prefixes: Sequence[str]) -> dict[str, set[str]]:
        """The namespaces each of `prefixes` was bound to (absent: never bound)."""
        if not prefixes:
            return {}
        params: list[Any] = []
        where = in_list("prefix", prefixes, params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                f"SELECT prefix, namespace FROM epcis_prefixes WHERE {where}", params
            )
        found: dict[str, set[str]] = {}
        for prefix, namespace in rows:
            found.setdefault(prefix, set()).add(namespace)
        return found

    def all_bindings(self) -> dict[str, set[str]]:
        """Every prefix captured documents bound, and the namespaces they bound it to."""
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall("SELECT prefix, namespace FROM epcis_prefixes")
        found: dict[str, set[str]] = {}
        for prefix, namespace in rows:
            found.setdefault(prefix, set()).add(namespace)
        return found
