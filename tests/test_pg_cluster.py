"""The throwaway PostgreSQL clusters that outage and replica tests make for themselves."""

from collections.abc import Iterator

import psycopg
import pytest

from tests.pg_cluster import Cluster

#: One cluster for both tests: a module fixture is made once a worker.
pytestmark = pytest.mark.xdist_group("pg-cluster")


@pytest.fixture(scope="module")
def primary() -> Iterator[Cluster]:
    cluster = Cluster.create()
    try:
        yield cluster
    finally:
        cluster.destroy()


def test_a_cluster_of_its_own_can_be_stopped_and_started_again(primary: Cluster) -> None:
    primary.stop()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(primary.url(), connect_timeout=2).close()
    primary.start()
    with psycopg.connect(primary.url()) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_standby_replays_what_the_primary_writes(primary: Cluster) -> None:
    standby = primary.standby()
    try:
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            conn.execute("CREATE TABLE replicated (n int)")
            conn.execute("INSERT INTO replicated VALUES (42)")
        standby.wait_for_replay(primary)
        with psycopg.connect(standby.url()) as conn:
            assert conn.execute("SELECT n FROM replicated").fetchone() == (42,)
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
    finally:
        standby.destroy()
