"""A quick look at the database before a start builds anything on it, so that one that
cannot be reached stops the start with one line that names it and the likely fix."""

import os
import sqlite3
from pathlib import Path

import psycopg

from infrastructure.database_url import DatabaseUrl, InvalidDatabaseUrl, masked_url

_SETTING = "TRACEPOINT_DATABASE_URL"


class DatabaseUnreachable(Exception):
    """The database cannot be used; the message is one line for the operator."""


def check_database(url: str, timeout: float = 5.0) -> None:
    """Raise DatabaseUnreachable unless the database at `url` answers and takes writes."""
    try:
        parsed = DatabaseUrl.parse(url)
    except InvalidDatabaseUrl as exc:
        raise DatabaseUnreachable(f"{_SETTING} is not a database URL: {exc}") from exc
    if parsed.backend == "sqlite":
        _check_sqlite(url, parsed.path, timeout)
    else:
        _check_postgresql(url, parsed, timeout)


def _check_sqlite(url: str, path: str, timeout: float) -> None:
    if path == ":memory:":
        return
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseUnreachable(
            f"cannot create the folder {folder} of the database {url} ({exc.strerror}): "
            f"set {_SETTING} to a file in a writable folder"
        ) from exc
    # SQLite writes its journal and WAL files next to the database.
    unwritable = folder if not os.access(folder, os.W_OK | os.X_OK) else None
    if unwritable is None and os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
        unwritable = Path(path)
    if unwritable is not None:
        raise DatabaseUnreachable(
            f"cannot write the database {url}: {unwritable} is not writable for this user; "
            f"fix its permissions or set {_SETTING} to a file in a writable folder"
        )
    try:
        connection = sqlite3.connect(path, timeout=timeout)
        try:
            connection.execute("PRAGMA schema_version").fetchone()
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise DatabaseUnreachable(
            f"cannot open the database {url} ({exc}): is it a SQLite file? "
            f"set {_SETTING} to another file"
        ) from exc


def _check_postgresql(url: str, parsed: DatabaseUrl, timeout: float) -> None:
    shown = masked_url(url)
    try:
        connection = psycopg.connect(
            host=parsed.host,
            port=parsed.port,
            user=parsed.user,
            password=parsed.password or None,
            dbname=parsed.dbname,
            connect_timeout=max(1, round(timeout)),
        )
    except psycopg.Error as exc:
        raise DatabaseUnreachable(
            f"cannot connect to the database {shown}: {_reason(exc, parsed)}"
        ) from exc
    connection.close()


def _reason(exc: psycopg.Error, url: DatabaseUrl) -> str:
    """What went wrong and the likely fix, from the driver's message (its last line is
    the server's or the socket's own words)."""
    text = " ".join(str(exc).split())
    lower = text.lower()
    where = f"{url.host}:{url.port}"
    if "does not exist" in lower and "database" in lower:
        return (
            f'database "{url.dbname}" does not exist; create it '
            f"(createdb -h {url.host} -p {url.port} -U {url.user} {url.dbname}) "
            f"or fix the name in {_SETTING}"
        )
    if "password authentication failed" in lower or "no password supplied" in lower:
        return f'user "{url.user}" was refused; check the user and password in {_SETTING}'
    if "role" in lower and "does not exist" in lower:
        return f'there is no user "{url.user}"; fix the user in {_SETTING}'
    if "connection refused" in lower:
        return (
            f"nothing answers at {where} (connection refused); start PostgreSQL "
            f"or fix the host and port in {_SETTING}"
        )
    if "translate host name" in lower or "name or service not known" in lower:
        return f'the host "{url.host}" is unknown; fix the host in {_SETTING}'
    if "timeout" in lower or "timed out" in lower:
        return (
            f"no answer from {where} (timed out); check the host, the port and any "
            f"firewall, or fix {_SETTING}"
        )
    return f"{text}; check {_SETTING}"
