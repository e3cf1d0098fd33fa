"""The one way Tracepoint opens a pool of PostgreSQL connections (primary or replica)."""

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from infrastructure.database_url import DatabaseUrl


def connection_pool(
    url: DatabaseUrl,
    *,
    name: str,
    min_size: int,
    max_size: int,
    timeout: float,
    connect_timeout: int,
    application_name: str | None = None,
    autocommit: bool = False,
    check_idle: bool = False,
) -> ConnectionPool[psycopg.Connection[Any]]:
    """An open pool of connections to `url`, in its schema; `timeout` bounds the wait
    for a connection, `connect_timeout` the wait for the server; `check_idle` tests a
    connection before handing it out."""
    return ConnectionPool(
        conninfo=psycopg.conninfo.make_conninfo(
            host=url.host,
            port=url.port,
            user=url.user,
            password=url.password or None,
            dbname=url.dbname,
            connect_timeout=connect_timeout,
            options=f"-c search_path={url.schema}",
            # Names the sessions in the server's pg_stat_activity (None: the default).
            application_name=application_name,
        ),
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        check=ConnectionPool.check_connection if check_idle else None,
        kwargs={"autocommit": True} if autocommit else {},
        open=True,
        name=name,
    )
