"""/metrics while PostgreSQL is down, on a cluster of the test's own (never the shared one):
the scrape waits for a connection once, not once per part, and names every part unread."""

import logging
import time
from collections.abc import Iterator

import pytest

from application.service.runtime import Tracepoint
from tests.conftest import make_settings
from tests.pg_cluster import Cluster
from tests.test_metrics import DATABASE_PARTS

pytestmark = pytest.mark.postgres

#: A request waits this long for a connection; one wait per part would be five of them.
POOL_WAIT = 5.0


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    made = Cluster.create()
    try:
        yield made
    finally:
        made.destroy()


def test_a_scrape_with_the_database_stopped_answers_within_one_connection_wait(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    service = Tracepoint(make_settings(cluster.url()))
    try:
        cluster.stop()
        with caplog.at_level(logging.WARNING):
            started = time.monotonic()
            state = service.state.read()
            took = time.monotonic() - started
            service.state.read()
        assert state.failed == DATABASE_PARTS
        assert took < 2 * POOL_WAIT
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 1
        assert warnings[0].exc_info is None
    finally:
        cluster.start()
        service.close()
