"""Appends to the log take turns on a lock of their own (`append_lock_statements`), so
that commit order stays log order, without waiting for a vacuum of the log; and still
with processes of an earlier release, which take the table lock."""

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import psycopg
import pytest

from application.service.runtime import Tracepoint
from domain.epcis.captured_event import CapturedEvent
from infrastructure.database_url import DatabaseUrl
from infrastructure.event_store import log_table
from infrastructure.settings import Settings
from tests.epcis.documents import object_event

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]

#: Long enough for an append that does not wait to finish on a slow host.
DONE_WITHIN = 20.0
#: How long an append that must wait is watched waiting.
WATCHED = 0.5

Append = Callable[[Tracepoint], None]


def _event(number: int) -> CapturedEvent:
    return CapturedEvent.captured(f"urn:uuid:{number}", object_event(), {}, "t", "c1")


def _as_capture(service: Tracepoint) -> None:
    # The capture's way: the turn taken, then the entries, in the caller's transaction.
    with service.database.transaction() as conn:
        service.store.lock_within(conn)
        service.store.append_within(conn, _event(1))


def _as_library(service: Tracepoint) -> None:
    # eventsourcing's way, through the recorder (master data and other aggregates).
    service.store.save(_event(2))


APPENDS = pytest.mark.parametrize("append", [_as_capture, _as_library], ids=["capture", "save"])


@pytest.fixture
def service(settings: Settings) -> Iterator[Tracepoint]:
    started = Tracepoint(settings)
    yield started
    started.close()


def locking_the_log(database_url: str, mode: str) -> str:
    """The statement that locks the log table in `mode`, as a process of the earlier
    release (EXCLUSIVE) or a vacuum (SHARE UPDATE EXCLUSIVE) does."""
    schema = DatabaseUrl.parse(database_url).schema
    return f'LOCK TABLE "{schema}"."{log_table("postgresql")}" IN {mode} MODE'


@contextmanager
def holding(database_url: str, mode: str) -> Iterator[None]:
    """Another session holding the log table in `mode` until the block ends."""
    with psycopg.connect(database_url.split("?")[0]) as conn:
        conn.execute(locking_the_log(database_url, mode))
        yield
        conn.rollback()


@contextmanager
def holding_the_turn(service: Tracepoint) -> Iterator[None]:
    """An append's transaction of this release holding the turn until the block ends."""
    with service.database.transaction() as conn:
        service.store.lock_within(conn)
        yield


def started(append: Append, service: Tracepoint) -> threading.Thread:
    thread = threading.Thread(target=append, args=(service,), daemon=True)
    thread.start()
    return thread


def waits_while(held: AbstractContextManager[None], append: Append, service: Tracepoint) -> None:
    """`append` waits while `held` is, and completes once it is let go."""
    with held:
        thread = started(append, service)
        thread.join(WATCHED)
        assert thread.is_alive()
    thread.join(DONE_WITHIN)
    assert not thread.is_alive()


@APPENDS
def test_an_append_does_not_wait_for_a_vacuum_of_the_log(
    service: Tracepoint, database_url: str, append: Append
) -> None:
    # VACUUM, autovacuum and ANALYZE hold SHARE UPDATE EXCLUSIVE on the table they work on.
    with holding(database_url, "SHARE UPDATE EXCLUSIVE"):
        thread = started(append, service)
        thread.join(DONE_WITHIN)
        assert not thread.is_alive()


@APPENDS
def test_an_append_waits_for_an_earlier_releases_append(
    service: Tracepoint, database_url: str, append: Append
) -> None:
    waits_while(holding(database_url, "EXCLUSIVE"), append, service)


@APPENDS
def test_an_append_waits_for_another_append_to_commit(service: Tracepoint, append: Append) -> None:
    waits_while(holding_the_turn(service), append, service)


def test_an_earlier_releases_append_waits_for_an_append(
    service: Tracepoint, database_url: str
) -> None:
    with holding_the_turn(service), psycopg.connect(database_url.split("?")[0]) as earlier:
        earlier.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            earlier.execute(locking_the_log(database_url, "EXCLUSIVE"))


@APPENDS
def test_an_append_notifies_the_channel_eventsourcing_listens_on(
    service: Tracepoint, database_url: str, append: Append
) -> None:
    with psycopg.connect(database_url.split("?")[0], autocommit=True) as listener:
        listener.execute(f'LISTEN "{log_table("postgresql")}"')
        append(service)
        notified = list(listener.notifies(timeout=DONE_WITHIN, stop_after=1))
    assert [n.channel for n in notified] == [log_table("postgresql")]
