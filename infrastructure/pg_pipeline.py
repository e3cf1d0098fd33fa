"""A PostgreSQL transaction sent in pipeline mode: statements whose answers nobody reads
go out together and are answered at the next sync, not one round trip each.

psycopg's own `transaction()` in pipeline mode syncs on entering and twice on leaving,
and its implicit BEGIN waits for an answer; a one-event capture then saves few of its
~13 round trips. Here BEGIN, COMMIT and ROLLBACK are statements of the pipeline, on a
connection switched to autocommit for the block (so psycopg sends no BEGIN of its own).
"""

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from psycopg import Pipeline
from psycopg.pq import TransactionStatus


@contextmanager
def pipelined_transaction(
    raw: psycopg.Connection[Any],
) -> Iterator[tuple[Pipeline, psycopg.Cursor[Any]]]:
    """One transaction on `raw` (idle, not in autocommit) in pipeline mode: committed when
    the block ends, rolled back if it raises; `raw` is given back as it was lent.

    Yields the pipeline and a cursor for the statements whose answers nobody reads: a
    cursor of its own for each would cost more than some of those statements.
    """
    with in_autocommit(raw), raw.pipeline() as pipeline:
        quiet = raw.cursor()
        quiet.execute("BEGIN")
        try:
            yield pipeline, quiet
            # Answered with the sync that ends the pipeline, which raises its error (or
            # that of any statement before it): a sync of its own would cost a round
            # trip more.
            quiet.execute("COMMIT")
        except BaseException:
            discard_errors(pipeline)
            if not raw.broken:
                quiet.execute("ROLLBACK")
            raise


@contextmanager
def in_autocommit(raw: psycopg.Connection[Any]) -> Iterator[None]:
    """`raw` (idle, not in autocommit) in autocommit for the block, then given back as it
    was lent: out of autocommit, with no transaction left open."""
    raw.autocommit = True
    try:
        yield
    finally:
        if not raw.broken and not raw.closed:
            # A COMMIT or ROLLBACK the server skipped (an aborted pipeline) leaves the
            # transaction open.
            if raw.info.transaction_status != TransactionStatus.IDLE:
                raw.rollback()
            raw.autocommit = False


def discard_errors(pipeline: Pipeline) -> None:
    """Sync `pipeline`, dropping the error of a statement that failed since the last sync
    (the caller rolls its work back): until a sync the server skips every statement."""
    with suppress(psycopg.DatabaseError):
        pipeline.sync()
