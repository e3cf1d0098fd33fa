"""Parsing `TRACEPOINT_DATABASE_URL` into what the SQLite and PostgreSQL adapters need."""

from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit


class InvalidDatabaseUrl(ValueError):
    """A database URL that names no supported backend."""


@dataclass(frozen=True)
class DatabaseUrl:
    """Where the event store and read models live.

    `schema` (PostgreSQL only, from `?schema=name`) keeps one service's tables apart
    from another's in the same database; tests use it for isolation.
    """

    backend: Literal["sqlite", "postgresql"]
    path: str = ""
    host: str = "127.0.0.1"
    port: int = 5432
    user: str = "postgres"
    password: str = ""
    dbname: str = ""
    schema: str = "public"

    @classmethod
    def parse(cls, url: str) -> "DatabaseUrl":
        """Read `sqlite:///relative.db`, `sqlite:////abs.db` or `postgresql://u:p@h:port/db`."""
        parts = urlsplit(url)
        if parts.scheme == "sqlite":
            path = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
            if not path:
                raise InvalidDatabaseUrl(f"{masked_url(url)!r} names no SQLite file")
            return cls(backend="sqlite", path=path)
        if parts.scheme in ("postgresql", "postgres"):
            query = parse_qs(parts.query)
            dbname = unquote(parts.path.lstrip("/"))
            if not dbname:
                raise InvalidDatabaseUrl(f"{masked_url(url)!r} names no database")
            try:
                port = parts.port or 5432
            except ValueError as exc:  # its message is safe: it quotes the port only
                raise InvalidDatabaseUrl(f"{masked_url(url)!r}: {exc}") from exc
            return cls(
                backend="postgresql",
                host=parts.hostname or "127.0.0.1",
                port=port,
                user=unquote(parts.username or "postgres"),
                password=unquote(parts.password or ""),
                dbname=dbname,
                schema=query.get("schema", ["public"])[0],
            )
        raise InvalidDatabaseUrl(f"{masked_url(url)!r}: use sqlite:///path or postgresql://host/db")

    def ensure_directory(self) -> None:
        """Create the folder of a SQLite file, so a fresh checkout can start at once."""
        if self.backend == "sqlite" and self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)


def masked_url(url: str) -> str:
    """The URL with its password replaced by `***`, fit for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.netloc.rpartition("@")[0].partition(":")[0]
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()
