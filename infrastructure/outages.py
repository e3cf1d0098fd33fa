"""Which failures mean the database is unreachable (an outage), not a fault of ours.

Only PostgreSQL has outages: a SQLite file is opened in-process, and "database is locked"
is a busy file, which its busy timeout waits out, never a lost server.
"""

import psycopg
import psycopg.errors
from psycopg_pool import PoolTimeout

#: SQLSTATE classes and codes of a server that went away or is not taking sessions yet.
_LOST_CLASSES = ("08",)  # connection exception
_LOST_CODES = frozenset({"57P01", "57P02", "57P03"})  # admin/crash shutdown, starting up


def is_database_unavailable(exc: BaseException) -> bool:
    """Whether `exc`, or an error it was raised from, says the database cannot be reached.

    eventsourcing wraps psycopg's errors in its own (`raise ... from`), so the chain of
    causes is searched.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_lost(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def cannot_connect(exc: BaseException) -> bool:
    """Whether the outage showed as no connection to be had within the pool's wait (a fresh
    connection would not help now), rather than a connection that broke in use."""
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, PoolTimeout):
            return True
        current = current.__cause__ or current.__context__
    return False


def _is_lost(exc: BaseException) -> bool:
    if isinstance(exc, PoolTimeout):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    sqlstate = exc.sqlstate
    if sqlstate is None:
        # No answer from a server at all: refused, reset, closed, or the pool's own
        # "connection is closed" / "connection is lost".
        return True
    return sqlstate.startswith(_LOST_CLASSES) or sqlstate in _LOST_CODES
