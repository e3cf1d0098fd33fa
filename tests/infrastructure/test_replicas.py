"""Reads on a PostgreSQL hot standby (`TRACEPOINT_DATABASE_REPLICA_URLS`), keeping
read-your-writes: against a real primary and standby this module makes for itself
(initdb and pg_basebackup on free ports), never the shared test server."""

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import psycopg.errors
import pytest
from aiohttp.test_utils import TestClient
from psycopg import sql
from yarl import URL

from api.service.app import create_app
from application.service.runtime import Tracepoint
from infrastructure.replicas import APPLICATION_NAME, ReplicaCounts
from tests.access.helpers import user_with
from tests.conftest import AS_CAPTURED, make_settings
from tests.epcis.documents import object_event
from tests.flows.helpers import capture
from tests.pg_cluster import Cluster, free_port

#: The primary and standby are made once: every test of the module runs in one xdist worker.
pytestmark = pytest.mark.xdist_group("replicas")


Client = TestClient[Any, Any]


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[Cluster, Cluster]]:
    """A primary and a hot standby streaming from it, for every test of the module."""
    primary = Cluster.create()
    try:
        standby = primary.standby()
        try:
            yield primary, standby
        finally:
            standby.destroy()
    finally:
        primary.destroy()


@pytest.fixture
def standby(clusters: tuple[Cluster, Cluster]) -> Iterator[Cluster]:
    """The standby, replaying and running again after the test."""
    _, replica = clusters
    yield replica
    if not replica.is_running():
        replica.start()
    with psycopg.connect(replica.url(), autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_resume()")


def _service(primary: Cluster, standby: Cluster) -> Tracepoint:
    return Tracepoint(
        make_settings(primary.url(), database_replica_urls=standby.url(), secret="replicas")
    )


@pytest.fixture
async def service(clusters: tuple[Cluster, Cluster], standby: Cluster) -> AsyncIterator[Tracepoint]:
    primary, _ = clusters
    tracepoint = _service(primary, standby)
    await tracepoint.start()
    try:
        yield tracepoint
    finally:
        await tracepoint.stop()


@pytest.fixture
async def client(service: Tracepoint, aiohttp_client: Any) -> Client:
    result: Client = await aiohttp_client(create_app(service, manage_lifecycle=False))
    return result


def counts(service: Tracepoint) -> ReplicaCounts:
    assert service.database.replicas is not None
    return service.database.replicas.counts


def pause_replay(standby: Cluster) -> None:
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_pause()")


def _receiving(standby: Cluster) -> bool:
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        row = conn.execute(
            "SELECT EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')"
        ).fetchone()
    return bool(row and row[0])


def _set_primary_conninfo(standby: Cluster, conninfo: str, streaming: bool) -> None:
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        conn.execute(sql.SQL("ALTER SYSTEM SET primary_conninfo = {}").format(conninfo))
        conn.execute("SELECT pg_reload_conf()")
    for _ in range(500):
        if _receiving(standby) == streaming:
            return
        time.sleep(0.02)
    raise TimeoutError(f"the standby's WAL receiver did not become streaming={streaming}")


@contextlib.contextmanager
def cut_off(standby: Cluster) -> Iterator[None]:
    """The standby cut off from its primary: its WAL receiver points at a closed port
    (reloaded, it stops streaming at once), until the block ends."""
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        row = conn.execute("SHOW primary_conninfo").fetchone()
    assert row is not None
    _set_primary_conninfo(standby, f"host=127.0.0.1 port={free_port()} user=postgres", False)
    try:
        yield
    finally:
        _set_primary_conninfo(standby, str(row[0]), True)


async def found(client: Client, epc: str, token: str | None = None) -> list[Any]:
    headers = {**AS_CAPTURED, "Authorization": f"Bearer {token}"} if token else AS_CAPTURED
    response = await client.get("/v2/epcis/events", params={"MATCH_epc": epc}, headers=headers)
    assert response.status == 200, await response.text()
    body = await response.json()
    return [e["epcList"] for e in body["epcisBody"]["queryResults"]["resultsBody"]["eventList"]]


def _epc() -> str:
    return f"urn:epc:id:sgtin:4012345.011111.{secrets.randbelow(10**9)}"


async def test_a_query_goes_to_the_replica_once_it_has_replayed_the_callers_write(
    clusters: tuple[Cluster, Cluster], service: Tracepoint, client: Client
) -> None:
    primary, standby = clusters
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    await asyncio.to_thread(standby.wait_for_replay, primary)
    replica, primary_reads = counts(service).replica[0], counts(service).primary
    assert await found(client, epc) == [[epc]]
    assert counts(service).replica[0] > replica
    assert counts(service).primary == primary_reads
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        sessions = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            (APPLICATION_NAME,),
        ).fetchone()
    assert sessions is not None
    assert sessions[0] >= 1


async def test_the_metrics_count_reads_by_where_they_went(
    clusters: tuple[Cluster, Cluster], standby: Cluster, aiohttp_client: Any
) -> None:
    primary, _ = clusters
    settings = make_settings(
        primary.url(), database_replica_urls=standby.url(), secret="replicas", metrics_enabled=True
    )
    tracepoint = Tracepoint(settings)
    await tracepoint.start()
    try:
        client: Client = await aiohttp_client(create_app(tracepoint, manage_lifecycle=False))
        await found(client, _epc())
        response = await client.get("/metrics", headers=AS_CAPTURED)
        assert response.status == 200, await response.text()
        text = await response.text()
        served = counts(tracepoint)
        assert f'tracepoint_replica_reads_total{{target="replica-0"}} {served.replica[0]}' in text
        assert 'tracepoint_replica_reads_total{target="primary"}' in text
    finally:
        await tracepoint.stop()


async def test_a_next_page_is_read_on_the_primary_whose_snapshot_its_token_holds(
    clusters: tuple[Cluster, Cluster], service: Tracepoint, client: Client
) -> None:
    primary, standby = clusters
    location = f"urn:epc:id:sgln:4012345.{secrets.randbelow(10**5):05d}.0"
    await capture(client, *(object_event(bizLocation={"id": location}) for _ in range(2)))
    await asyncio.to_thread(standby.wait_for_replay, primary)
    params = {"EQ_bizLocation": location, "perPage": "1"}
    first = await client.get("/v2/epcis/events", params=params, headers=AS_CAPTURED)
    token = URL(first.headers["Link"].split(";")[0].strip("<>")).query["nextPageToken"]
    replica = counts(service).replica[0]
    second = await client.get(
        "/v2/epcis/events", params={**params, "nextPageToken": token}, headers=AS_CAPTURED
    )
    assert second.status == 200
    # Caught up as the replica is, the page is not routed to it.
    assert counts(service).replica[0] == replica


async def test_right_after_a_write_a_lagging_replica_is_passed_over(
    standby: Cluster, service: Tracepoint, client: Client
) -> None:
    pause_replay(standby)
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    replica, primary = counts(service).replica[0], counts(service).primary
    assert await found(client, epc) == [[epc]]
    assert counts(service).replica[0] == replica
    assert counts(service).primary > primary


async def test_a_caller_that_did_not_write_reads_from_the_lagging_replica(
    clusters: tuple[Cluster, Cluster], standby: Cluster, service: Tracepoint, client: Client
) -> None:
    primary, _ = clusters
    reader = await user_with(client, admin_access=True)
    await asyncio.to_thread(standby.wait_for_replay, primary)
    pause_replay(standby)
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    before = counts(service).replica[0]
    # Someone else's write, not replayed yet: read-your-writes does not promise it.
    assert await found(client, epc, reader.token) == []
    assert counts(service).replica[0] > before


async def test_a_write_noted_by_one_process_keeps_another_off_the_lagging_replica(
    clusters: tuple[Cluster, Cluster], standby: Cluster, client: Client, aiohttp_client: Any
) -> None:
    primary, _ = clusters
    other = _service(primary, standby)
    await other.start()
    try:
        elsewhere: Client = await aiohttp_client(create_app(other, manage_lifecycle=False))
        pause_replay(standby)
        epc = _epc()
        await capture(client, object_event(epcList=[epc]))
        assert await found(elsewhere, epc) == [[epc]]
        assert counts(other).replica[0] == 0
    finally:
        await other.stop()


async def test_a_stopped_replica_is_skipped_without_errors(
    standby: Cluster, service: Tracepoint, client: Client
) -> None:
    standby.stop()
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    assert await found(client, epc) == [[epc]]
    response = await client.get("/items/product", headers=AS_CAPTURED)
    assert response.status == 200
    assert counts(service).primary >= 2


def test_replicas_need_a_postgresql_primary(tmp_path: Any) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path}/t.db", database_replica_urls="postgresql://h/db"
    )
    with pytest.raises(ValueError, match="TRACEPOINT_DATABASE_REPLICA_URLS"):
        Tracepoint(settings)


async def test_a_replica_lagging_more_than_the_bound_is_skipped(
    clusters: tuple[Cluster, Cluster], standby: Cluster, client: Client, aiohttp_client: Any
) -> None:
    primary, _ = clusters
    strict = Tracepoint(
        make_settings(
            primary.url(),
            database_replica_urls=standby.url(),
            database_replica_max_lag=0.5,
            secret="replicas",
        )
    )
    await strict.start()
    try:
        reader = await user_with(client, admin_access=True)
        pause_replay(standby)
        await capture(client, object_event())  # the standby falls behind, and stays
        await asyncio.sleep(1.0)
        elsewhere: Client = await aiohttp_client(create_app(strict, manage_lifecycle=False))
        assert await found(elsewhere, _epc(), reader.token) == []
        assert counts(strict).replica[0] == 0
        assert counts(strict).primary > 0
    finally:
        await strict.stop()


async def test_a_replica_cut_off_from_its_primary_is_not_taken_for_current(
    clusters: tuple[Cluster, Cluster], standby: Cluster, client: Client, aiohttp_client: Any
) -> None:
    primary, _ = clusters
    strict = Tracepoint(
        make_settings(
            primary.url(),
            database_replica_urls=standby.url(),
            database_replica_max_lag=0.5,
            secret="replicas",
        )
    )
    await strict.start()
    try:
        reader = await user_with(client, admin_access=True)
        await asyncio.to_thread(standby.wait_for_replay, primary)
        with cut_off(standby):
            epc = _epc()
            # It received nothing more, so it has replayed all it received: yet it lags.
            await capture(client, object_event(epcList=[epc]))
            await asyncio.sleep(1.0)
            elsewhere: Client = await aiohttp_client(create_app(strict, manage_lifecycle=False))
            assert await found(elsewhere, epc, reader.token) == [[epc]]
            assert counts(strict).replica[0] == 0
    finally:
        await strict.stop()


async def test_a_cut_off_replica_that_has_all_the_primary_wrote_is_still_read(
    clusters: tuple[Cluster, Cluster], standby: Cluster, service: Tracepoint, client: Client
) -> None:
    primary, _ = clusters
    reader = await user_with(client, admin_access=True)
    await asyncio.to_thread(standby.wait_for_replay, primary)
    with cut_off(standby):
        before = counts(service).replica[0]
        await found(client, _epc(), reader.token)
        assert counts(service).replica[0] > before


def _terminating_each_replica_session(
    service: Tracepoint, standby: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every replica session chosen for a read dies before its first statement."""
    replicas = service.database.replicas
    assert replicas is not None
    choose = replicas._try

    @contextlib.contextmanager
    def dying(index: int, after: str | None) -> Iterator[Any]:
        with choose(index, after) as raw:
            if raw is not None:
                with psycopg.connect(standby.url(), autocommit=True) as conn:
                    conn.execute("SELECT pg_terminate_backend(%s, 5000)", (raw.info.backend_pid,))
            yield raw

    monkeypatch.setattr(replicas, "_try", dying)


async def test_a_replica_session_dying_mid_read_leaves_the_read_to_the_primary(
    clusters: tuple[Cluster, Cluster],
    standby: Cluster,
    service: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, _ = clusters
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    await asyncio.to_thread(standby.wait_for_replay, primary)
    _terminating_each_replica_session(service, standby, monkeypatch)
    before = counts(service).primary
    assert await found(client, epc) == [[epc]]
    assert counts(service).primary > before
    # Marked down: the next read goes straight to the primary.
    replica, before = counts(service).replica[0], counts(service).primary
    assert await found(client, epc) == [[epc]]
    assert counts(service).replica[0] == replica
    assert counts(service).primary > before


class _Conflicting:
    """A replica connection whose statements the standby cancels, as it does a read
    that holds back the replay of the primary's WAL."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        raise psycopg.errors.SerializationFailure(
            "canceling statement due to conflict with recovery"
        )


async def test_a_read_cancelled_by_a_recovery_conflict_runs_again_on_the_primary(
    clusters: tuple[Cluster, Cluster],
    standby: Cluster,
    service: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, _ = clusters
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    await asyncio.to_thread(standby.wait_for_replay, primary)
    replicas = service.database.replicas
    assert replicas is not None
    choose = replicas._try

    @contextlib.contextmanager
    def conflicting(index: int, after: str | None) -> Iterator[Any]:
        with choose(index, after) as raw:
            yield None if raw is None else _Conflicting(raw)

    monkeypatch.setattr(replicas, "_try", conflicting)
    before = counts(service).primary
    assert await found(client, epc) == [[epc]]
    assert counts(service).primary > before


async def test_a_committed_write_answers_2xx_when_its_position_cannot_be_noted(
    clusters: tuple[Cluster, Cluster],
    standby: Cluster,
    service: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, _ = clusters
    positions = service.core.reads._positions
    assert positions is not None

    def blink(caller: str) -> None:
        raise psycopg.OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(positions, "wrote", blink)
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))  # asserts 201/202
    await asyncio.to_thread(standby.wait_for_replay, primary)
    replica, primary_reads = counts(service).replica[0], counts(service).primary
    # Where its write ends is unknown: the caller reads on the primary for a while.
    assert await found(client, epc) == [[epc]]
    assert counts(service).replica[0] == replica
    assert counts(service).primary > primary_reads


@contextlib.contextmanager
def _impatient(standby: Cluster) -> Iterator[None]:
    """The standby cancels at once whatever holds back its replay of the primary's WAL."""
    with psycopg.connect(standby.url(), autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET max_standby_streaming_delay = 0")
        conn.execute("SELECT pg_reload_conf()")
    try:
        yield
    finally:
        with psycopg.connect(standby.url(), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM RESET max_standby_streaming_delay")
            conn.execute("SELECT pg_reload_conf()")


async def test_a_read_the_standby_cancels_in_a_real_recovery_conflict_runs_on_the_primary(
    clusters: tuple[Cluster, Cluster],
    standby: Cluster,
    service: Tracepoint,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, _ = clusters
    with psycopg.connect(primary.url(), autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS conflict_probe (x int)")
    epc = _epc()
    await capture(client, object_event(epcList=[epc]))
    await asyncio.to_thread(standby.wait_for_replay, primary)
    replicas = service.database.replicas
    assert replicas is not None
    choose = replicas._try

    @contextlib.contextmanager
    def in_conflict(index: int, after: str | None) -> Iterator[Any]:
        with choose(index, after) as raw:
            if raw is not None:
                # The read holds a lock the primary's next WAL record needs on the standby.
                raw.execute("SELECT FROM conflict_probe")
                with psycopg.connect(primary.url()) as conn:
                    conn.execute("LOCK TABLE conflict_probe IN ACCESS EXCLUSIVE MODE")
                standby.wait_for_replay(primary)
            yield raw

    monkeypatch.setattr(replicas, "_try", in_conflict)
    with _impatient(standby):
        assert await found(client, epc) == [[epc]]
    monkeypatch.undo()
    # Nothing is wrong with the replica itself: the next read may use it.
    await asyncio.to_thread(standby.wait_for_replay, primary)
    before = counts(service).replica[0]
    assert await found(client, epc) == [[epc]]
    assert counts(service).replica[0] > before
